import { z } from 'zod';
import { AppError, notFound, type FieldErrors } from './errors.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * Turns zod issues into the `errors` map of a validation problem: field path → messages.
 * Null-prototype, because the paths are the client's property names (`constructor`, `__proto__`).
 */
export function fieldErrors(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = Object.create(null);
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  for (const issue of error.issues) {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add(path ? `${path}.${key}` : key, `'${key}' is not a recognised property.`);
    } else {
      add(path || '$', issue.message);
    }
  }
  return errors;
}

/** A request body that fails its schema is a 422 with a per-field `errors` map. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (body === undefined) {
    throw new AppError('validation', 'A JSON request body is required.', { errors: { $: ['A JSON request body is required.'] } });
  }
  const result = schema.safeParse(body);
  if (!result.success) throw new AppError('validation', 'One or more fields are invalid.', { errors: fieldErrors(result.error) });
  return result.data;
}

/** Query strings are not request bodies: a bad one is a 400, still with the per-field map. */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.infer<S> {
  const result = schema.safeParse(query ?? {});
  if (!result.success) {
    throw new AppError('bad_request', 'One or more query parameters are invalid.', { errors: fieldErrors(result.error) });
  }
  return result.data;
}

/**
 * A path id that is not a UUID can never name a resource, so it answers exactly like an id
 * that names nothing: 404 (the way route constraints behave in the contract's origin).
 */
export function pathId(value: string | string[] | undefined, what: string): string {
  const id = Array.isArray(value) ? value[0] : value;
  if (!isUuid(id)) throw notFound(what, String(id ?? ''));
  return id.toLowerCase();
}
