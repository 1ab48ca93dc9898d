/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { Request, Response } from 'express';
import type { VNode } from 'preact';
import { isUuid } from '@preflight/http';
import { createAdminApi, type AdminApi } from '../gateway-client/api.ts';
import { AdminApiError, Layout, managesSettings, sendPage, type PageContext } from './context.ts';
import type { FormProblem, FormValues } from './components/form.tsx';

/**
 * What every page handler shares: the member's typed admin API, the shell around a page, the
 * posted form's fields, and turning a 409/422 from the admin API into what the form shows.
 */

export interface Member extends PageContext {
  api: AdminApi;
  /** Owners and Admins: settings, lifecycle, signers, testers. */
  canManage: boolean;
}

export const memberOf = (ctx: PageContext): Member => ({ ...ctx, api: createAdminApi(ctx.admin, ctx.session.orgId), canManage: managesSettings(ctx.session.role) });

/** Sends `content` in the shell, its nav entry marked by `path`. */
export function show(res: Response, m: Member, page: { title: string; path: string; status?: number }, content: VNode): void {
  sendPage(
    res,
    <Layout title={page.title} session={m.session} path={page.path}>
      {content}
    </Layout>,
    page.status ?? 200,
  );
}

/** The posted form (application/x-www-form-urlencoded): one name may come several times (checkboxes). */
export class Form {
  constructor(private readonly body: Record<string, unknown>) {}

  static of(req: Request): Form {
    return new Form(typeof req.body === 'object' && req.body !== null ? (req.body as Record<string, unknown>) : {});
  }

  /** The field's value ('' when absent; the first when sent several times). */
  text(name: string): string {
    const v = this.body[name];
    const first = Array.isArray(v) ? v[0] : v;
    return typeof first === 'string' ? first : '';
  }

  /** The trimmed value, or null when empty: what an optional field sends to the API. */
  optional(name: string): string | null {
    const v = this.text(name).trim();
    return v ? v : null;
  }

  /** Every value sent under the name (checkboxes), empty ones dropped. */
  list(name: string): string[] {
    const v = this.body[name];
    const all = Array.isArray(v) ? v : v === undefined ? [] : [v];
    return all.filter((x): x is string => typeof x === 'string' && x !== '');
  }

  checked(name: string): boolean {
    return this.list(name).length > 0;
  }

  /** A whole number when the field is one; otherwise the text as sent, so the API's 422 names it. */
  integer(name: string): number | string {
    const v = this.text(name).trim();
    return /^-?\d+$/.test(v) ? Number(v) : v;
  }

  /** The values to show again in a refused form (never the CSRF token or secrets). */
  values(except: readonly string[] = []): FormValues {
    const out: FormValues = {};
    for (const [name, v] of Object.entries(this.body)) {
      if (name === '_csrf' || except.includes(name)) continue;
      if (typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string'))) out[name] = v as string | string[];
    }
    return out;
  }
}

/** A field the console checks before calling (an id typed by hand): refused like the API's 422. */
export class LocalRefusal extends Error {
  constructor(readonly fields: Record<string, string[]>) {
    super('One or more fields are invalid.');
  }
}

/** A form field that must hold an id. */
export function idField(form: Form, name: string): string {
  const v = form.text(name).trim();
  if (!isUuid(v)) throw new LocalRefusal({ [name]: ['Must be an id (a UUID).'] });
  return v.toLowerCase();
}

/** A 409 or 422 of the admin API as the form shows it; anything else is rethrown to the error pages. */
export function refusal(err: unknown, form?: string): FormProblem {
  if (err instanceof LocalRefusal) return { form, detail: err.message, fields: err.fields };
  if (err instanceof AdminApiError && (err.status === 409 || err.status === 422)) {
    return { form, detail: err.problem.detail ?? 'The request was refused.', fields: err.problem.errors ?? {} };
  }
  throw err;
}

/** The status a page re-rendered with a refusal answers with. */
export const refusedStatus = (err: unknown): number => (err instanceof AdminApiError ? err.status : 422);

/**
 * Runs one admin call of a form: on success `done` answers (a redirect, or a page showing what
 * was made); on a 409/422 `refused` re-renders the page with the problem beside its form.
 */
export async function submit<T>(
  run: () => Promise<T>,
  done: (result: T) => void | Promise<void>,
  refused: (problem: FormProblem, status: number) => void | Promise<void>,
  form?: string,
): Promise<void> {
  let result: T;
  try {
    result = await run();
  } catch (err) {
    await refused(refusal(err, form), refusedStatus(err));
    return;
  }
  await done(result);
}

/** After a successful POST: back to a page with GET (no resubmission on reload). */
export function backTo(res: Response, location: string): void {
  res.redirect(303, location);
}
