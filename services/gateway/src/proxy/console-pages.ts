import type { Request, RequestHandler } from 'express';
import { AppError } from '@preflight/http';
import type { Logger } from '@preflight/log';
import type { GatewayMetrics } from '../metrics.ts';
import { forward } from './forward.ts';
import { readBody, refuseFromHead } from './request-body.ts';
import type { Upstream } from './upstreams.ts';

/** Largest request body of a console page (its forms are small; url-encoded). */
export const CONSOLE_BODY_LIMIT = 1024 * 1024;

/** The one `route` label of every console page in the HTTP metrics: paths carry ids. */
export const CONSOLE_ROUTE_LABEL = '/console/*';

/**
 * What a browser's request carries to the console beyond the usual headers (proxy/headers.ts):
 * its session cookie, what the CSRF check reads (Origin, Referer, X-CSRF-Token, Fetch
 * Metadata), conditional GETs, and every request header htmx sends.
 */
const REQUEST_HEADERS = [
  'cookie',
  'origin',
  'referer',
  'user-agent',
  'x-csrf-token',
  'if-none-match',
  'if-modified-since',
  'sec-fetch-site',
  'sec-fetch-mode',
  'sec-fetch-dest',
  'sec-fetch-user',
  'hx-boosted',
  'hx-current-url',
  'hx-history-restore-request',
  'hx-prompt',
  'hx-request',
  'hx-target',
  'hx-trigger',
  'hx-trigger-name',
] as const;

/** What the console's answers carry back beyond the usual headers: cookies, page policies, htmx's response headers. */
const RESPONSE_HEADERS = [
  'set-cookie',
  'content-security-policy',
  'x-frame-options',
  'referrer-policy',
  'permissions-policy',
  'cross-origin-opener-policy',
  'vary',
  'hx-location',
  'hx-push-url',
  'hx-redirect',
  'hx-refresh',
  'hx-replace-url',
  'hx-reswap',
  'hx-retarget',
  'hx-reselect',
  'hx-trigger',
  'hx-trigger-after-settle',
  'hx-trigger-after-swap',
] as const;

/** A `.` or `..` path segment, plain or %-encoded: browsers resolve them before sending, so only a crafted request has one. */
const DOT_SEGMENT = /(^|\/)(\.|%2e){1,2}(\/|$)/i;

const isConsolePath = (path: string) => path === '/console' || path.startsWith('/console/');

/** The client's address and scheme as this gateway sees them (TRUST_PROXY), replacing whatever the client claimed. */
function forwardedHeaders(req: Request): Record<string, string> {
  const address = req.ip ?? req.socket.remoteAddress;
  return { 'x-forwarded-proto': req.protocol, ...(address ? { 'x-forwarded-for': address } : {}) };
}

export interface ConsolePagesDeps {
  upstream: Upstream;
  metrics: GatewayMetrics;
  logger: Logger;
  /** REQUEST_BODY_TIMEOUT_MS and UPSTREAM_QUEUE_TIMEOUT_MS, as for every other route. */
  bodyDeadlineMs: number;
  queueDeadlineMs: number;
}

/**
 * The console's pages, served through the gateway so the browser sees one origin: `/console`
 * and everything under it, every method, passed to the console service as they came (path and
 * query, the body raw, cookies both ways, redirects not followed). No API key and no rate limit
 * here: the console authenticates its members with its own session cookie and limits sign-ins
 * itself. Its port answers only service tokens, so the browser's `Authorization` is replaced by
 * the gateway's own token without a caller; the client's address (as TRUST_PROXY decides it)
 * goes in `X-Forwarded-For`, replacing any the browser sent, for the console's sign-in limits.
 * A console that is down is the 503 (with Retry-After) of any other upstream. `GET /` redirects
 * to the console.
 */
export function consolePages(deps: ConsolePagesDeps): RequestHandler {
  return async (req, res, next) => {
    if (req.path === '/' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.locals.routeLabel = '/';
      res.redirect(302, '/console/');
      return;
    }
    if (!isConsolePath(req.path)) {
      next();
      return;
    }
    res.locals.routeLabel = CONSOLE_ROUTE_LABEL;
    const rawPath = req.originalUrl.split('?')[0]!;
    if (DOT_SEGMENT.test(rawPath)) throw new AppError('not_found', `No resource at ${req.method} ${rawPath}.`);
    refuseFromHead(req, CONSOLE_BODY_LIMIT);
    let body: Buffer | undefined;
    try {
      body = await readBody(req, CONSOLE_BODY_LIMIT, deps.bodyDeadlineMs);
    } catch (err) {
      if (req.destroyed) return; // the browser left mid-body; nobody to answer
      throw err;
    }
    await forward(req, res, deps.upstream, undefined, body, {
      metrics: deps.metrics,
      logger: deps.logger,
      queueDeadlineMs: deps.queueDeadlineMs,
      forwardHeaders: REQUEST_HEADERS,
      setHeaders: forwardedHeaders(req),
      responseHeaders: RESPONSE_HEADERS,
    });
  };
}
