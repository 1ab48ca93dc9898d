import express, { type RequestHandler } from 'express';
import { AppError, validationFailed, type FieldErrors } from './errors.ts';

/** Request media types the contract accepts (spec section 4). */
export const JSON_MEDIA_TYPES = ['application/json', 'text/json', 'application/*+json'];
export const DEFAULT_BODY_LIMIT = 256 * 1024;
/** Issue trackers' webhooks (an issue's whole body and more, GitHub's up to 25 MB): read raw, up to this. */
export const TRACKER_HOOK_BODY_LIMIT = 1024 * 1024;
/**
 * Deepest nesting of arrays and objects a body may have. No request schema goes beyond 4;
 * code that recurses over a value (String() of an array, zod) overflowed the stack at ~10,000.
 */
export const MAX_JSON_DEPTH = 64;

export const NUL_MESSAGE = 'Must not contain the NUL character (U+0000).';
export const TOO_DEEP_MESSAGE = `Nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects.`;

/** True when a request declares a body: a positive Content-Length or any Transfer-Encoding. */
export function declaresBody(headers: { 'content-length'?: string; 'transfer-encoding'?: string }): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** How a field is named in an `errors` map: dotted path, `$` for the body itself. */
const fieldName = (path: readonly (string | number)[]) =>
  path.length === 0 ? '$' : path.map((p) => String(p).replaceAll('\u0000', '\\u0000')).join('.');

/**
 * What no service can store or walk safely, in a parsed body: a NUL in any string or property
 * name (Postgres text refuses 0x00), and nesting beyond MAX_JSON_DEPTH (reported once, under
 * the top-level field it is in). Iterative, so the check itself cannot overflow the stack.
 */
export function unsafeJsonErrors(body: unknown): FieldErrors | undefined {
  const errors: FieldErrors = Object.create(null);
  let found = false;
  const add = (field: string, message: string) => {
    found = true;
    const list = (errors[field] ??= []);
    if (!list.includes(message)) list.push(message);
  };
  // Paths are linked to their parent and spelt out only for a finding: a wide body stays linear.
  type Node = { value: unknown; key?: string | number; parent?: Node; depth: number };
  const pathOf = (node: Node | undefined): (string | number)[] => {
    const path: (string | number)[] = [];
    for (let n = node; n?.key !== undefined; n = n.parent) path.unshift(n.key);
    return path;
  };
  const stack: Node[] = [{ value: body, depth: 0 }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const { value, depth } = node;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) add(fieldName(pathOf(node)), NUL_MESSAGE);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_JSON_DEPTH) {
      add(fieldName(pathOf(node).slice(0, 1)), TOO_DEEP_MESSAGE);
      continue;
    }
    if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push({ value: item, key: i, parent: node, depth: depth + 1 }));
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      const child: Node = { value: item, key, parent: node, depth: depth + 1 };
      if (key.includes('\u0000')) add(fieldName(pathOf(child)), NUL_MESSAGE);
      stack.push(child);
    }
  }
  return found ? errors : undefined;
}

/**
 * Rejects bodies in media types we do not read (415), parses JSON ones, then refuses what no
 * handler should see (unsafeJsonErrors, 422). Every service reads its bodies through this.
 */
export function jsonBodies(limit = DEFAULT_BODY_LIMIT): RequestHandler[] {
  const requireJsonType: RequestHandler = (req, _res, next) => {
    if (declaresBody(req.headers) && !req.is(JSON_MEDIA_TYPES)) {
      const got = req.headers['content-type'] ?? 'none';
      next(new AppError('unsupported_media_type', `Content-Type '${got}' is not supported; send application/json, text/json or application/*+json.`));
      return;
    }
    next();
  };
  const refuseUnsafe: RequestHandler = (req, _res, next) => {
    const errors = req.body === undefined ? undefined : unsafeJsonErrors(req.body);
    next(errors ? validationFailed(errors) : undefined);
  };
  return [requireJsonType, express.json({ type: JSON_MEDIA_TYPES, limit, strict: false }), refuseUnsafe];
}
