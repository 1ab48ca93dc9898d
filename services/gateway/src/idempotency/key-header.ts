import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { AppError } from '@preflight/http';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const MAX_KEY_LENGTH = 255;

/** Printable ASCII, space included (Node trims it at either end); no tabs or bytes above 0x7E. */
const VALID_KEY = new RegExp(`^[\\x20-\\x7e]{1,${MAX_KEY_LENGTH}}$`);

const invalid = (message: string) =>
  new AppError('bad_request', `The ${IDEMPOTENCY_HEADER} header is not valid: ${message}`, { errors: { [IDEMPOTENCY_HEADER]: [message] } });

/**
 * The Idempotency-Key a request carries, or undefined when it carries none. 400 for an empty,
 * over-long or non-printable key, and for two of them (Node would join them silently).
 */
export function idempotencyKeyOf(req: Request): string | undefined {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'idempotency-key') count++;
  if (count === 0) return undefined;
  if (count > 1) throw invalid('Send it once.');
  const key = req.headers['idempotency-key'];
  if (typeof key !== 'string' || !VALID_KEY.test(key)) {
    throw invalid(`Must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters.`);
  }
  return key;
}

/**
 * What makes two requests "the same": method, path with query, and the body. Forwarded
 * requests hash the raw body bytes; the admin endpoints the gateway answers itself hash their
 * parsed JSON body (its bytes are gone by then), which differs only in insignificant whitespace.
 */
export function requestFingerprint(method: string, url: string, body: Buffer | string | undefined): string {
  const hash = createHash('sha256').update(`${method}\n${url}\n`);
  if (body !== undefined) hash.update(body);
  return hash.digest('hex');
}
