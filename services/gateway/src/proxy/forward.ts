import type { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import { AppError, type Caller } from '@preflight/http';
import type { Logger } from '@preflight/log';
import { QueueDeadlineExceeded } from '../limits/slots.ts';
import type { GatewayMetrics, UpstreamOutcome } from '../metrics.ts';
import { clientResponseHeaders, upstreamRequestHeaders } from './headers.ts';
import type { Upstream, UpstreamResponse } from './upstreams.ts';

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/** Largest answer read whole in `whole` mode (answers to POSTs are a few hundred bytes). */
const WHOLE_ANSWER_LIMIT = 1024 * 1024;

export interface ForwardDeps {
  metrics: GatewayMetrics;
  logger: Logger;
  queueDeadlineMs: number;
  /**
   * Read the service's answer whole and send it in one `res.end`, and keep going if the caller
   * leaves: an idempotent request's answer must be recorded even then (idempotency/).
   */
  whole?: boolean;
  /** Request headers the route forwards beyond the usual ones (RouteTarget `forwardHeaders`). */
  forwardHeaders?: readonly string[];
  /** Request headers with values the gateway sets, replacing the client's (X-Forwarded-For to the console). */
  setHeaders?: Readonly<Record<string, string>>;
  /** Response headers passed back beyond the usual ones (the console's Set-Cookie, CSP, htmx headers). */
  responseHeaders?: readonly string[];
}

function outcomeOf(status: number): UpstreamOutcome {
  if (status >= 500) return 'server_error';
  if (status >= 400) return 'client_error';
  return 'success';
}

/**
 * Forwards the request as is (method, path and query, the body already read whole, byte for
 * byte) with the caller's identity (none on an unauthenticated route) and the trace, then streams the service's answer back. Headers the gateway
 * already set on `res` (rate limits, trace id) stay. A request holds one of the upstream's
 * connection slots from before it is sent until its answer is relayed; one that waits longer
 * than `queueDeadlineMs` for a slot is a 503. No answer at all — refused, reset, timed out, or
 * the breaker open — is a 503 naming the service, never a stack trace.
 */
export async function forward(
  req: Request,
  res: Response,
  upstream: Upstream,
  caller: Caller | undefined,
  body: Buffer | undefined,
  deps: ForwardDeps,
): Promise<void> {
  let release: () => void;
  try {
    release = await upstream.slots.acquire(deps.queueDeadlineMs);
  } catch (err) {
    if (!(err instanceof QueueDeadlineExceeded)) throw err;
    deps.metrics.upstreamRequests.inc({ upstream: upstream.name, outcome: 'queue_timeout' });
    throw new AppError('upstream_unavailable', `The ${upstream.name} service is busy: no connection to it freed up within ${deps.queueDeadlineMs / 1000} s. Try again shortly.`, {
      service: upstream.name,
    });
  }
  try {
    await send(req, res, upstream, caller, body, deps);
  } finally {
    release();
  }
}

async function send(
  req: Request,
  res: Response,
  upstream: Upstream,
  caller: Caller | undefined,
  body: Buffer | undefined,
  deps: ForwardDeps,
): Promise<void> {
  const abort = new AbortController();
  const onClose = () => {
    if (!res.writableFinished && !deps.whole) abort.abort();
  };
  res.on('close', onClose);
  if (res.destroyed && !deps.whole) abort.abort(); // the caller left while this request waited for a slot

  const started = process.hrtime.bigint();
  let answer: UpstreamResponse;
  try {
    const authorization = await upstream.authorization(caller);
    answer = await upstream.request(
      {
        method: req.method as 'GET',
        path: req.originalUrl,
        headers: upstreamRequestHeaders(req.headers, caller, authorization, deps.forwardHeaders, deps.setHeaders),
        body,
        signal: abort.signal,
      },
      () => abort.signal.aborted,
    );
  } catch (err) {
    res.off('close', onClose);
    if (abort.signal.aborted) return; // the caller left; nobody to answer
    const code = (err as { code?: string }).code ?? '';
    const outcome: UpstreamOutcome = code === 'EOPENBREAKER' ? 'breaker_open' : TIMEOUT_CODES.has(code) ? 'timeout' : 'error';
    deps.metrics.upstreamRequests.inc({ upstream: upstream.name, outcome });
    deps.logger.warn({ upstream: upstream.name, outcome, code, err: (err as Error).message }, 'upstream unavailable');
    throw new AppError('upstream_unavailable', `The ${upstream.name} service is unavailable. Try again shortly.`, { service: upstream.name });
  }
  deps.metrics.upstreamDuration.observe({ upstream: upstream.name }, Number(process.hrtime.bigint() - started) / 1e9);
  deps.metrics.upstreamRequests.inc({ upstream: upstream.name, outcome: outcomeOf(answer.statusCode) });

  if (deps.whole) {
    let whole: Buffer;
    try {
      whole = await readWhole(answer.body, WHOLE_ANSWER_LIMIT);
    } catch (err) {
      deps.logger.warn({ upstream: upstream.name, err: (err as Error).message }, 'upstream response could not be read whole');
      throw new AppError('upstream_unavailable', `The ${upstream.name} service's answer could not be read. Try again shortly.`, { service: upstream.name });
    } finally {
      res.off('close', onClose);
    }
    res.status(answer.statusCode);
    for (const [name, value] of Object.entries(clientResponseHeaders(answer.headers, deps.responseHeaders))) res.setHeader(name, value);
    res.setHeader('Content-Length', String(whole.length));
    res.end(whole);
    return;
  }
  res.status(answer.statusCode);
  for (const [name, value] of Object.entries(clientResponseHeaders(answer.headers, deps.responseHeaders))) res.setHeader(name, value);
  try {
    await relay(answer.body, res);
  } catch (err) {
    // Headers are gone already: all we can do is cut the connection so the client sees it.
    if (!abort.signal.aborted) deps.logger.warn({ upstream: upstream.name, err: (err as Error).message }, 'upstream response stream failed');
    res.destroy();
  } finally {
    res.off('close', onClose);
  }
}

/** The whole body, or a rejection once it passes `limit` bytes or fails. */
async function readWhole(body: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      body.destroy();
      throw new Error(`answer larger than ${limit} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Streams the service's body to the client (with back-pressure) and settles when the client
 * has it all, or rejects when the body fails. Not `stream.pipeline`: it builds and aborts an
 * AbortController per call, a cost on every proxied answer (docs/benchmarks-history.md).
 */
function relay(body: Readable, res: Response): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const fail = (err: Error) => {
      body.destroy();
      reject(err);
    };
    body.once('error', fail);
    res.once('finish', () => resolve());
    // The client left (or the socket broke) before the end: stop reading the service's answer.
    res.once('close', () => {
      if (!res.writableFinished) fail(new Error('client connection closed before the response was complete'));
    });
    body.pipe(res);
  });
}
