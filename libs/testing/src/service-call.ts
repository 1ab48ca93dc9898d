import type { TokenClaims } from '@preflight/service-auth';
import { serviceAuthHeaders } from './service-auth.ts';

export interface Reply {
  status: number;
  headers: Headers;
  // Tests read arbitrary fields of whatever came back.
  body: any;
}

export interface CallOptions {
  /** The caller the gateway forwards; absent (or null), the call is the peer's. */
  as?: TokenClaims['caller'] | null;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is, when there is no `body`. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

/**
 * The `call` of a service test harness: a request to service `to` at `base()` as the gateway
 * for `as`, otherwise as `peer` (the internal routes' caller; the gateway when absent), the
 * reply's body parsed as JSON when there is one.
 */
export function serviceCall(to: string, base: () => string, peer?: string) {
  return async (method: string, path: string, { as, body, raw, headers = {} }: CallOptions = {}): Promise<Reply> => {
    const res = await fetch(`${base()}${path}`, {
      method,
      headers: {
        ...(await serviceAuthHeaders(to, as ? { caller: as } : peer ? { from: peer } : {})),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      // A copy as a plain Uint8Array: where the DOM's fetch types apply (the console's Preact pulls them in), a Buffer is no BodyInit.
      ...(body !== undefined ? { body: JSON.stringify(body) } : raw !== undefined ? { body: typeof raw === 'string' ? raw : new Uint8Array(raw) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
}
