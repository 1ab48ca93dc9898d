import { Agent, request } from 'undici';
import type { z } from 'zod';
import { ENDPOINTS, INTERNAL_ENDPOINTS, pathOf, type ResponseOf, type SendOf, type ServiceName } from '@preflight/contract';
import { outgoingTraceparent } from '@preflight/http';
import type { ServiceTokens } from '@preflight/service-auth';

type InternalId = keyof typeof INTERNAL_ENDPOINTS;
/** The internal endpoints `owner` serves: the only ones its client can call. */
export type InternalEndpointOf<O extends ServiceName> = { [K in InternalId]: (typeof INTERNAL_ENDPOINTS)[K]['owner'] extends O ? K : never }[InternalId];

/** What a call sends: the path's `:params`, a query, and the body the entry's request schema takes. */
export interface InternalCall<K extends InternalId> {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: SendOf<K>;
}

/**
 * The owner's answer: a 200 with the body the manifest promises (parsed by the entry's
 * response schema), or another status with its JSON body as sent (a problem, or undefined).
 */
export type InternalAnswer<K extends InternalId> = { ok: true; status: 200; body: ResponseOf<K> } | { ok: false; status: number; problem: unknown };

export interface InternalClient<O extends ServiceName> {
  /** One call to an endpoint of the owner's; throws `unavailable` when no usable answer came (no connection, timeout, a 200 of another shape). */
  call<K extends InternalEndpointOf<O>>(id: K, args?: InternalCall<K>): Promise<InternalAnswer<K>>;
  /** `call` for a resource that may not exist: its body on 200, undefined on 404, `unavailable` on anything else. */
  found<K extends InternalEndpointOf<O>>(id: K, args?: InternalCall<K>): Promise<ResponseOf<K> | undefined>;
  close(): Promise<void>;
}

export interface InternalClientOptions {
  baseUrl: string;
  /** Signs each call for the owner (the token's audience is the owner's name). */
  tokens: Pick<ServiceTokens, 'authorization'>;
  /** To connect, then for the headers, then for the body. */
  timeoutMs: number;
  /** To connect, when it should be shorter than `timeoutMs`. */
  connectTimeoutMs?: number;
  /** The whole call at most, all three together (a caller that holds a page for the answer). */
  deadlineMs?: number;
  /** The error a call throws when the owner gave no usable answer (each caller has its own, which its retries know). */
  unavailable: new (message: string, options?: ErrorOptions) => Error;
}

/**
 * A typed client of one service's internal endpoints (libs/contract, manifest/internal-endpoints.ts):
 * the path, the request body's type and the answer's shape all come from the manifest entry,
 * and the transport (a keep-alive undici agent with timeouts, the service token, the trace
 * context) is this one piece of code for every caller.
 */
export function internalClient<O extends ServiceName>(owner: O, opts: InternalClientOptions): InternalClient<O> {
  const dispatcher = new Agent({ connect: { timeout: opts.connectTimeoutMs ?? opts.timeoutMs }, headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs });
  const unavailable = (message: string, cause?: unknown) => new opts.unavailable(message, { cause });
  const base = opts.baseUrl.replace(/\/+$/, '');

  async function call<K extends InternalEndpointOf<O>>(id: K, args: InternalCall<K> = {}): Promise<InternalAnswer<K>> {
    const entry = ENDPOINTS[id];
    const query = args.query ? `?${new URLSearchParams(args.query).toString()}` : '';
    const traceparent = outgoingTraceparent();
    let res;
    try {
      res = await request(`${base}${pathOf(id, args.params)}${query}`, {
        method: entry.method,
        dispatcher,
        headers: {
          accept: 'application/json',
          authorization: await opts.tokens.authorization(owner),
          ...(args.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(traceparent ? { traceparent } : {}),
        },
        ...(args.body !== undefined ? { body: JSON.stringify(args.body) } : {}),
        ...(opts.deadlineMs !== undefined ? { signal: AbortSignal.timeout(opts.deadlineMs) } : {}),
      });
    } catch (err) {
      throw unavailable(`no answer from the ${owner} service: ${(err as Error).message}`, err);
    }
    let json: unknown;
    try {
      const text = await res.body.text();
      json = text ? JSON.parse(text) : undefined;
    } catch (err) {
      throw unavailable(`unreadable answer from the ${owner} service: ${(err as Error).message}`, err);
    }
    if (res.statusCode !== 200) return { ok: false, status: res.statusCode, problem: json };
    const schema = (entry as { response?: { body: z.ZodType } }).response?.body;
    if (!schema) return { ok: true, status: 200, body: json as ResponseOf<K> };
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw unavailable(`the ${owner} service answered ${id} in an unexpected shape`);
    return { ok: true, status: 200, body: parsed.data as ResponseOf<K> };
  }

  return {
    call,
    async found(id, args) {
      const answer = await call(id, args);
      if (answer.ok) return answer.body;
      if (answer.status === 404) return undefined;
      throw unavailable(`the ${owner} service answered ${answer.status} to ${id}`);
    },
    close: () => dispatcher.close(),
  };
}
