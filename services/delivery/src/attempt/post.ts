import { request } from 'undici';
import type { PinnedAgents } from './agents.ts';
import type { Target } from './target.ts';

/** The first 2 KB of each response body are kept in the delivery log (spec 6.5 rule 7). */
export const RESPONSE_BODY_LIMIT = 2048;
/** Bytes of a response read at most; the rest is not waited for. */
const READ_LIMIT = 64 * 1024;

export interface PostResult {
  statusCode: number | null;
  responseBody: string | null;
  error: string | null;
  delivered: boolean;
  /** A timeout, a connection error or a 5xx: what counts against the endpoint's breaker. */
  unhealthy: boolean;
}

/**
 * UTF-8, best effort: invalid bytes become U+FFFD, a character cut at the limit is dropped,
 * and so does NUL become U+FFFD: Postgres text cannot hold it, and one such body would fail
 * the statement that records its whole batch of attempts.
 */
function decodePrefix(bytes: Buffer): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes, { stream: true }).replaceAll('\u0000', '\uFFFD');
}

/**
 * One POST of the stored body to the checked address. Redirects are never followed (a 3xx is a
 * failure). Connect, headers and the body are all bounded by `signal` (the attempt's deadline).
 */
export async function post(url: URL, target: Extract<Target, { ok: true }>, body: Buffer, headers: Record<string, string>, opts: { signal: AbortSignal; timeoutMs: number; agents: PinnedAgents }): Promise<PostResult> {
  const agent = opts.agents.for(target.address, target.family);
  let status: number | null = null;
  try {
    const res = await request(url, { method: 'POST', body, headers, dispatcher: agent, signal: opts.signal });
    status = res.statusCode;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let readBytes = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      readBytes += chunk.length;
      if (keptBytes < RESPONSE_BODY_LIMIT) {
        const part = chunk.subarray(0, RESPONSE_BODY_LIMIT - keptBytes);
        kept.push(part);
        keptBytes += part.length;
      }
      if (readBytes >= READ_LIMIT) break;
    }
    const responseBody = keptBytes > 0 ? decodePrefix(Buffer.concat(kept)) : '';
    if (status >= 200 && status < 300) return { statusCode: status, responseBody, error: null, delivered: true, unhealthy: false };
    if (status >= 300 && status < 400) return { statusCode: status, responseBody, error: `redirect (${status}) not followed`, delivered: false, unhealthy: false };
    return { statusCode: status, responseBody, error: `answered ${status}`, delivered: false, unhealthy: status >= 500 };
  } catch (err) {
    if (opts.signal.aborted) return { statusCode: status, responseBody: null, error: `timed out after ${opts.timeoutMs} ms`, delivered: false, unhealthy: true };
    const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    const code = e.code ?? e.cause?.code;
    return { statusCode: null, responseBody: null, error: `connection failed: ${code ? `${code} ` : ''}${e.cause?.message ?? e.message}`.trim(), delivered: false, unhealthy: true };
  }
}
