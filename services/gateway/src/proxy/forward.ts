import type { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import getRawBody from 'raw-body';
import { AppError, type Caller } from '@preflight/http';
import type { Logger } from '@preflight/log';
import type { GatewayMetrics, UpstreamOutcome } from '../metrics.ts';
import { clientResponseHeaders, upstreamRequestHeaders } from './headers.ts';
import type { Upstream, UpstreamResponse } from './upstreams.ts';

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Bodies of at most this many bytes (a declared Content-Length) are read whole before they are
 * forwarded, so that undici writes them with the request head in one write; streamed, the head
 * and each chunk were writes of their own, and the stream plumbing cost more than the copy.
 * Larger or chunked bodies stream through (the service enforces its own size limit either way).
 * Read with raw-body (express's own body reader, plain listeners): `node:stream/consumers`
 * did the same through an async iterator and a Blob, ~4 % of the gateway's allocations.
 */
const BUFFERED_BODY_MAX_BYTES = 64 * 1024;

/**
 * What to send upstream as the body: none, the bytes read whole, or the request stream.
 * Rejects when the client's body fails or the connection ends before the body does.
 */
async function upstreamBody(req: Request): Promise<Buffer | Readable | undefined> {
  if (req.headers['transfer-encoding'] !== undefined) return req;
  const length = Number(req.headers['content-length'] ?? 0);
  if (!(length > 0)) return undefined;
  return length <= BUFFERED_BODY_MAX_BYTES ? getRawBody(req, { length }) : req;
}

function outcomeOf(status: number): UpstreamOutcome {
  if (status >= 500) return 'server_error';
  if (status >= 400) return 'client_error';
  return 'success';
}

/**
 * Forwards the request as is (method, path and query, body stream) with the caller's identity
 * and the trace, then streams the service's answer back. Headers the gateway already set on
 * `res` (rate limits, trace id) stay. No answer at all — refused, reset, timed out, or the
 * breaker open — is a 503 naming the service, never a stack trace.
 */
export async function forward(
  req: Request,
  res: Response,
  upstream: Upstream,
  caller: Caller,
  deps: { metrics: GatewayMetrics; logger: Logger },
): Promise<void> {
  const abort = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) abort.abort();
  };
  res.on('close', onClose);

  let body: Buffer | Readable | undefined;
  try {
    body = await upstreamBody(req);
  } catch (err) {
    res.off('close', onClose);
    if (abort.signal.aborted || req.destroyed) return; // the caller left mid-body; nobody to answer
    throw err;
  }

  const started = process.hrtime.bigint();
  let answer: UpstreamResponse;
  try {
    answer = await upstream.request(
      {
        method: req.method as 'GET',
        path: req.originalUrl,
        headers: upstreamRequestHeaders(req.headers, caller),
        body,
        signal: abort.signal,
      },
      () => abort.signal.aborted,
    );
  } catch (err) {
    if (abort.signal.aborted) return; // the caller left; nobody to answer
    const code = (err as { code?: string }).code ?? '';
    const outcome: UpstreamOutcome = code === 'EOPENBREAKER' ? 'breaker_open' : TIMEOUT_CODES.has(code) ? 'timeout' : 'error';
    deps.metrics.upstreamRequests.inc({ upstream: upstream.name, outcome });
    deps.logger.warn({ upstream: upstream.name, outcome, code, err: (err as Error).message }, 'upstream unavailable');
    throw new AppError('upstream_unavailable', `The ${upstream.name} service is unavailable. Try again shortly.`, { service: upstream.name });
  }
  deps.metrics.upstreamDuration.observe({ upstream: upstream.name }, Number(process.hrtime.bigint() - started) / 1e9);
  deps.metrics.upstreamRequests.inc({ upstream: upstream.name, outcome: outcomeOf(answer.statusCode) });

  res.status(answer.statusCode);
  for (const [name, value] of Object.entries(clientResponseHeaders(answer.headers))) res.setHeader(name, value);
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

/**
 * Streams the service's body to the client (with back-pressure) and settles when the client
 * has it all, or rejects when the body fails. `stream.pipeline` did the same, but builds and
 * aborts an AbortController per call, whose AbortError cost ~2% of the gateway's CPU.
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
