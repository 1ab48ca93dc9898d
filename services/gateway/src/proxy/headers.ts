import type { IncomingHttpHeaders } from 'node:http';
import { callerHeaders, INTERNAL_HEADER_PREFIX, outgoingTraceparent, type Caller } from '@preflight/http';

/**
 * Request headers passed to a service. An allow-list rather than a block-list: hop-by-hop
 * headers (Connection, Keep-Alive, Transfer-Encoding, TE, Upgrade, Proxy-*), credentials
 * (Authorization, X-Api-Key, Cookie) and anything spoofing our internal `x-preflight-*`
 * identity headers can never slip through, whatever a client invents. Only the console's pages
 * take the browser's Cookie (console-pages.ts); Authorization is always the gateway's own.
 */
const FORWARDED_REQUEST_HEADERS = ['content-type', 'content-length', 'accept', 'accept-language', 'tracestate'] as const;

/** Response headers passed back to the client; the rest (hop-by-hop, server internals) stay behind. */
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'content-length', 'location', 'allow', 'retry-after', 'cache-control', 'etag', 'last-modified'] as const;

/**
 * The headers a service gets: the allow-list, plus a route's own `extra` names (a tracker's
 * signature and event headers on the inbound hook; the console's cookies and htmx headers) and
 * `set` values the gateway decides (the client's address for the console), then the gateway's
 * service token (which carries the caller: what the service trusts) and the caller's identity
 * headers (read only by services of the previous release during a rolling upgrade). An
 * unauthenticated route has no caller, so a token without one and no identity header at all.
 */
export function upstreamRequestHeaders(
  incoming: IncomingHttpHeaders,
  caller: Caller | undefined,
  authorization: string,
  extra: readonly string[] = [],
  set: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = incoming[name];
    if (typeof value === 'string') headers[name] = value;
  }
  for (const name of extra) {
    const value = incoming[name];
    if (typeof value === 'string') headers[name] = value;
  }
  Object.assign(headers, set);
  const traceparent = outgoingTraceparent();
  if (traceparent) headers.traceparent = traceparent;
  // Set last, and checked, so nothing above can ever carry an identity header.
  for (const name of Object.keys(headers)) if (name.startsWith(INTERNAL_HEADER_PREFIX)) delete headers[name];
  headers.authorization = authorization;
  return caller ? { ...headers, ...callerHeaders(caller) } : headers;
}

/** The allow-listed response headers, plus a route's own `extra` names (the console's cookies and page policies). */
export function clientResponseHeaders(upstream: Record<string, string | string[] | undefined>, extra: readonly string[] = []): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const names of [FORWARDED_RESPONSE_HEADERS, extra]) {
    for (const name of names) {
      const value = upstream[name];
      if (value !== undefined) headers[name] = value;
    }
  }
  return headers;
}
