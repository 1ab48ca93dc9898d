/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { VNode } from 'preact';

export interface FieldProps {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'url' | 'number';
  value?: string | undefined;
  /** Messages shown under the field (from a 422 `errors` map), announced with the field. */
  errors?: readonly string[] | undefined;
  required?: boolean;
  autocomplete?: string;
  hint?: string;
  minLength?: number;
  maxLength?: number;
}

/** A labelled input with its hint and errors tied to it (aria-describedby, aria-invalid). */
export function Field({ name, label, type = 'text', value, errors, required, autocomplete, hint, minLength, maxLength }: FieldProps): VNode {
  const id = `field-${name}`;
  const described = [hint ? `${id}-hint` : undefined, errors?.length ? `${id}-error` : undefined].filter(Boolean).join(' ');
  return (
    <div class={errors?.length ? 'field field-invalid' : 'field'}>
      <label for={id}>{label}</label>
      {hint && (
        <p class="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <input
        id={id}
        name={name}
        type={type}
        value={value}
        required={required}
        autocomplete={autocomplete}
        minLength={minLength}
        maxLength={maxLength}
        aria-invalid={errors?.length ? 'true' : undefined}
        aria-describedby={described || undefined}
      />
      {errors?.length ? (
        <p class="field-error" id={`${id}-error`}>
          {errors.join(' ')}
        </p>
      ) : null}
    </div>
  );
}

/** The hidden CSRF field every console form carries. */
export const CsrfField = ({ token }: { token: string }): VNode => <input type="hidden" name="_csrf" value={token} />;

/** A form-level message (a refused sign-in, a 409's detail), announced when it appears. */
export const FormAlert = ({ message }: { message: string | undefined }): VNode | null =>
  message ? (
    <div class="alert" role="alert">
      {message}
    </div>
  ) : null;
