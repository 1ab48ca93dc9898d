/**
 * Recognises a failure to reach a store (Postgres through pg and pg-pool), as opposed to a bug
 * or a refused statement: the request may well succeed a moment later, so it is a 503 with
 * `Retry-After`, not a 500. Duck-typed, so this library needs no database driver.
 */

/** Socket-level errors of a connection that could not be made or was lost. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs of an unavailable server: 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot
 * connect now (starting or shutting down), 53300 too many connections; class 08 is connection
 * exception.
 */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** pg and pg-pool report these without a code. */
const MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
];

function isOutage(err: object): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  const message = (err as { message?: unknown }).message;
  return typeof message === 'string' && MESSAGES.some((m) => message.startsWith(m));
}

/** True when `err`, or an error it wraps (`cause`, AggregateError `errors`), is a lost store. */
export function isDependencyOutage(err: unknown): boolean {
  const seen = new Set<object>();
  const queue: unknown[] = [err];
  while (queue.length > 0) {
    const e = queue.shift();
    if (typeof e !== 'object' || e === null || seen.has(e)) continue;
    seen.add(e);
    if (isOutage(e)) return true;
    queue.push((e as { cause?: unknown }).cause);
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner)) queue.push(...inner);
  }
  return false;
}
