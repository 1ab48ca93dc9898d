import type { Request } from 'express';
import getRawBody from 'raw-body';
import { AppError, declaresBody } from '@preflight/http';

/** Methods whose requests carry no body in this API; one that declares a body is refused. */
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'DELETE']);

/**
 * Refusals decided from the request head alone, before authentication and before any byte of
 * the body is read, so a declared body can never hold the gateway or an upstream:
 * two Authorization headers (Node keeps the first silently), a body on GET/HEAD/DELETE, and a
 * declared Content-Length above the limit. What arrives of the body is dropped (sendProblem).
 */
export function refuseFromHead(req: Request, limitBytes: number): void {
  let authorizations = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'authorization') authorizations++;
  if (authorizations > 1) {
    throw new AppError('bad_request', `The request carries ${authorizations} Authorization headers; send exactly one.`);
  }
  if (!declaresBody(req.headers)) return;
  if (BODYLESS_METHODS.has(req.method)) {
    throw new AppError('bad_request', `A ${req.method} request has no body here; this one declares one (Content-Length or Transfer-Encoding).`);
  }
  if (Number(req.headers['content-length'] ?? 0) > limitBytes) {
    throw new AppError('payload_too_large', `The request body exceeds the limit of ${limitBytes} bytes.`);
  }
}

/**
 * Settles like `reading`, unless the body is not all there within `deadlineMs`: then 408, and
 * the connection closes after the answer (which ends the read too; nobody waits for it).
 */
export async function withinReadDeadline<T>(deadlineMs: number, reading: Promise<T>): Promise<T> {
  reading.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new AppError('request_timeout', `The request body did not arrive within ${deadlineMs / 1000} s.`, { headers: { Connection: 'close' } })),
      deadlineMs,
    );
  });
  try {
    return await Promise.race([reading, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The whole body, read before anything goes upstream (413 past `limitBytes`, 408 past the
 * deadline), so a service only ever receives a complete body in one write.
 * Read with raw-body (express's own body reader, plain listeners) rather than
 * `node:stream/consumers`, whose async iterator and Blob allocate on every request.
 */
export function readBody(req: Request, limitBytes: number, deadlineMs: number): Promise<Buffer | undefined> {
  if (!declaresBody(req.headers)) return Promise.resolve(undefined);
  const declared = req.headers['content-length'];
  const length = declared !== undefined && req.headers['transfer-encoding'] === undefined ? Number(declared) : undefined;
  return withinReadDeadline(deadlineMs, getRawBody(req, { length, limit: limitBytes }));
}
