/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { ComponentChildren } from 'preact';

/**
 * Form building blocks: every input has a label, its errors (from a 422 `errors` map, keyed by
 * the same name the input posts) are next to it and tied to it with aria-describedby, and every
 * form posts the session's CSRF token.
 */

/** What a refused form shows: the problem's detail (409, 422) and its field errors. */
export interface FormProblem {
  /** Which form on the page it belongs to, where a page has several. */
  form?: string;
  detail: string;
  fields: Record<string, string[]>;
}

/** Field values to show again after a refusal. */
export type FormValues = Record<string, string | string[] | undefined>;

const fieldId = (form: string | undefined, name: string) => `${form ? `${form}-` : ''}${name}`.replace(/[^A-Za-z0-9_-]/g, '-');

export function CsrfField({ csrf }: { csrf: string }) {
  return <input type="hidden" name="_csrf" value={csrf} />;
}

/** A POST form: plain HTML (works without JavaScript, redirects after success), boosted by htmx where the page is. */
export function PostForm(props: { action: string; csrf: string; children: ComponentChildren; class?: string; label?: string; id?: string }) {
  return (
    <form method="post" action={props.action} class={props.class} aria-label={props.label} id={props.id}>
      <CsrfField csrf={props.csrf} />
      {props.children}
    </form>
  );
}

/** The problem's sentence, announced to screen readers when it appears. */
export function ProblemNotice({ problem, form }: { problem?: FormProblem; form?: string }) {
  if (!problem || problem.form !== form) return null;
  return (
    <div class="notice notice-error" role="alert">
      <p>{problem.detail}</p>
      {Object.entries(problem.fields)
        .filter(([name]) => name === '$')
        .flatMap(([, messages]) => messages.map((m) => <p>{m}</p>))}
    </div>
  );
}

function errorsFor(problem: FormProblem | undefined, form: string | undefined, name: string): string[] {
  if (!problem || problem.form !== form) return [];
  return problem.fields[name] ?? [];
}

function FieldErrors({ id, messages }: { id: string; messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <ul class="field-error" id={`${id}-error`}>
      {messages.map((m) => (
        <li>{m}</li>
      ))}
    </ul>
  );
}

interface FieldProps {
  name: string;
  label: string;
  form?: string;
  problem?: FormProblem;
  value?: string | null;
  hint?: string;
  required?: boolean;
}

function describedBy(id: string, hint: string | undefined, errors: string[]): string | undefined {
  const ids = [hint ? `${id}-hint` : '', errors.length ? `${id}-error` : ''].filter(Boolean);
  return ids.length ? ids.join(' ') : undefined;
}

/**
 * What every single-control field shares: the label, the hint, the errors after the control,
 * and the attributes tying them to it (`control`, spread onto the input, textarea or select).
 */
function FieldFrame(props: FieldProps & { render: (control: Record<string, unknown>) => ComponentChildren }) {
  const id = fieldId(props.form, props.name);
  const errors = errorsFor(props.problem, props.form, props.name);
  const control = {
    id,
    name: props.name,
    required: props.required,
    'aria-invalid': errors.length ? 'true' : undefined,
    'aria-describedby': describedBy(id, props.hint, errors),
  };
  return (
    <div class={errors.length ? 'field field-invalid' : 'field'}>
      <label for={id}>{props.label}</label>
      {props.hint ? (
        <p class="field-hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {props.render(control)}
      <FieldErrors id={id} messages={errors} />
    </div>
  );
}

export function Field(props: FieldProps & { type?: 'text' | 'email' | 'url' | 'password' | 'number' | 'datetime-local' | 'search'; autocomplete?: string; min?: number; max?: number }) {
  return (
    <FieldFrame
      {...props}
      render={(control) => <input {...control} type={props.type ?? 'text'} value={props.value ?? ''} autocomplete={props.autocomplete} min={props.min} max={props.max} />}
    />
  );
}

export function TextArea(props: FieldProps & { rows?: number }) {
  return (
    <FieldFrame
      {...props}
      render={(control) => (
        <textarea {...control} rows={props.rows ?? 4}>
          {props.value ?? ''}
        </textarea>
      )}
    />
  );
}

export interface Option {
  value: string;
  label: string;
}

export const options = (values: readonly string[]): Option[] => values.map((v) => ({ value: v, label: v }));

export function Select(props: FieldProps & { options: Option[]; blank?: string }) {
  return (
    <FieldFrame
      {...props}
      render={(control) => (
        <select {...control}>
          {props.blank !== undefined ? <option value="">{props.blank}</option> : null}
          {props.options.map((o) => (
            <option value={o.value} selected={o.value === props.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    />
  );
}

/** A group of checkboxes posting one name several times (or radios, with `radio`). */
export function Choices(props: {
  name: string;
  legend: string;
  form?: string;
  problem?: FormProblem;
  options: Option[];
  checked: readonly string[];
  hint?: string;
  radio?: boolean;
}) {
  const base = fieldId(props.form, props.name);
  const errors = errorsFor(props.problem, props.form, props.name);
  return (
    <fieldset class="choices" aria-describedby={describedBy(base, props.hint, errors)}>
      <legend>{props.legend}</legend>
      {props.hint ? <p class="field-hint" id={`${base}-hint`}>{props.hint}</p> : null}
      {props.options.map((o) => {
        const id = `${base}-${o.value}`.replace(/[^A-Za-z0-9_-]/g, '-');
        return (
          <div class="choice">
            <input type={props.radio ? 'radio' : 'checkbox'} id={id} name={props.name} value={o.value} checked={props.checked.includes(o.value)} />
            <label for={id}>{o.label}</label>
          </div>
        );
      })}
      <FieldErrors id={base} messages={errors} />
    </fieldset>
  );
}

export function Submit({ children, variant }: { children: ComponentChildren; variant?: 'danger' | 'secondary' }) {
  return (
    <button type="submit" class={variant ? `button button-${variant}` : 'button'}>
      {children}
    </button>
  );
}

/**
 * A destructive action behind a disclosure: the first click opens the question, the second
 * confirms. Plain HTML, so it works with the keyboard, without JavaScript and without dialogs.
 */
export function Confirm(props: { summary: string; question: string; action: string; csrf: string; button: string; children?: ComponentChildren }) {
  return (
    <details class="confirm">
      <summary class="button button-secondary">{props.summary}</summary>
      <PostForm action={props.action} csrf={props.csrf}>
        <p>{props.question}</p>
        {props.children}
        <Submit variant="danger">{props.button}</Submit>
      </PostForm>
    </details>
  );
}
