import type { Request, Response } from 'express';
import { AppError } from '@preflight/http';
import type { Logger } from '@preflight/log';
import type { GatewayMetrics } from '../metrics.ts';
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from './key-header.ts';
import { IdempotencyStore, type IdempotencyRecord, type RecordAddress } from './record-store.ts';

export interface IdempotencyDeps {
  store: IdempotencyStore;
  metrics: GatewayMetrics;
  logger: Logger;
  /** How long a duplicate waits for the request in flight with its key, then 409. */
  waitMs: number;
  /** Largest answer body kept for replay. */
  maxResponseBytes: number;
}

/** Response headers kept with an answer; rate-limit and trace headers are the replay's own. */
const KEPT_HEADERS = ['content-type', 'location', 'etag', 'last-modified', 'cache-control'];

/**
 * Only final answers are kept: 2xx and 4xx, except 408 and 429, which say "try again". A 5xx
 * (503 included) is not kept, so a retry runs the request again, as Stripe does.
 */
export function isFinalAnswer(status: number): boolean {
  return status < 500 && status !== 408 && status !== 429;
}

const POLL_MIN_MS = 10;
const POLL_MAX_MS = 200;

/**
 * Runs a POST carrying an Idempotency-Key at most once per key (docs/api.md, "Idempotent
 * retries"). Resolves 'run' when this request holds the key and must be executed (its answer
 * is then recorded on its way out), or 'answered' when the answer was given here: a replay of
 * the first answer. Throws the problems: 422 (same key, other request), 409 (still in flight
 * after `waitMs`), 503 (Redis unreachable: the guarantee cannot be given).
 */
export async function beginIdempotentPost(req: Request, res: Response, at: RecordAddress, fp: string, deps: IdempotencyDeps): Promise<'run' | 'answered'> {
  const deadline = Date.now() + deps.waitMs;
  let pause = POLL_MIN_MS;
  for (;;) {
    let found: Awaited<ReturnType<IdempotencyStore['claim']>>;
    try {
      found = await deps.store.claim(at, fp);
    } catch (err) {
      deps.metrics.idempotency.inc({ outcome: 'unavailable' });
      deps.logger.warn({ err: (err as Error).message }, 'idempotency store unreachable');
      throw new AppError('dependency_unavailable', `Requests with an ${IDEMPOTENCY_HEADER} cannot be taken just now: the store that makes them safe to retry is unreachable. Retry shortly.`);
    }
    if ('claim' in found) {
      deps.metrics.idempotency.inc({ outcome: 'executed' });
      recordOnTheWayOut(res, at, found.claim, deps);
      return 'run';
    }
    const record = found.existing;
    if (record.fp !== fp) {
      deps.metrics.idempotency.inc({ outcome: 'mismatch' });
      const message = 'Was already used with a different request (method, path or body) within 24 hours.';
      throw new AppError('validation', `The ${IDEMPOTENCY_HEADER} was already used with a different request. Use a new key for a new request.`, {
        errors: { [IDEMPOTENCY_HEADER]: [message] },
      });
    }
    if (record.state === 'done') {
      replay(res, at, record, deps);
      return 'answered';
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      deps.metrics.idempotency.inc({ outcome: 'in_progress' });
      throw new AppError('conflict', `A request with this ${IDEMPOTENCY_HEADER} is still in progress. Retry after 1 second to get its answer.`, {
        headers: { 'Retry-After': '1' },
      });
    }
    // The first request is in flight: wait for its answer (or for it to give the key up).
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
    if (res.destroyed) return 'answered'; // the duplicate's caller left; nobody to answer
    pause = Math.min(pause * 2, POLL_MAX_MS);
  }
}

function replay(res: Response, at: RecordAddress, record: Extract<IdempotencyRecord, { state: 'done' }>, deps: IdempotencyDeps): void {
  const answer = IdempotencyStore.answerOf(at, record);
  if (!answer) {
    deps.metrics.idempotency.inc({ outcome: 'too_large' });
    throw new AppError('conflict', `The request with this ${IDEMPOTENCY_HEADER} was done (status ${record.status}), but its answer was too large to keep for replay. It will not run again.`, {
      firstStatus: record.status,
    });
  }
  deps.metrics.idempotency.inc({ outcome: 'replayed' });
  res.status(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.setHeader(REPLAYED_HEADER, 'true');
  res.setHeader('Content-Length', String(answer.body.length));
  res.end(answer.body);
}

/**
 * Wraps `res.write`/`res.end` so the answer, whatever produces it (a forwarded service, a
 * gateway endpoint, the problem handler), is kept or the key given up before the client gets
 * it: a client holding an answer that retries always gets the replay. The answer is written
 * even if the client has left, so a client that timed out can retry and find it.
 */
function recordOnTheWayOut(res: Response, at: RecordAddress, claim: string, deps: IdempotencyDeps): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const collect = (chunk: unknown, encoding: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    size += buf.length;
    if (size <= deps.maxResponseBytes) chunks.push(buf);
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.write = ((...args: unknown[]) => {
    collect(args[0], args[1]);
    return write(...args);
  }) as Response['write'];
  res.end = ((...args: unknown[]) => {
    collect(args[0], args[1]);
    res.end = end as Response['end'];
    void settle(res.statusCode, res).finally(() => end(...args));
    return res;
  }) as Response['end'];

  async function settle(status: number, response: Response): Promise<void> {
    try {
      if (!isFinalAnswer(status)) {
        await deps.store.release(at, claim);
        deps.metrics.idempotency.inc({ outcome: 'not_stored' });
        return;
      }
      const headers: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = response.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      const kept = size <= deps.maxResponseBytes ? { status, headers, body: Buffer.concat(chunks) } : { status, tooLarge: true as const };
      if (await deps.store.complete(at, claim, kept)) deps.metrics.idempotency.inc({ outcome: 'stored' });
    } catch (err) {
      // The claim expires after IDEMPOTENCY_LOCK_TTL_MS; a retry after that runs again.
      deps.logger.warn({ err: (err as Error).message, status }, 'could not record an idempotent answer');
    }
  }
}
