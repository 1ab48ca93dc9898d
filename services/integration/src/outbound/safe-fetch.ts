import { lookup } from 'node:dns/promises';
import { EventEmitter } from 'node:events';
import type { LookupFunction } from 'node:net';
import { Agent, Headers, Response, request, type Dispatcher } from 'undici';
import { assessHost, isIpLiteral, normaliseHost } from '@preflight/net';
import { ProviderError, type SafeFetch } from '../providers/provider.ts';

export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });
const AGENT_IDLE_MS = 60_000;
/** A provider's answer is read whole; an API answer larger than this is not one we asked for. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Statuses whose Response may not carry a body (the Fetch standard's null body statuses). */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/** A lookup that answers the checked address whatever is asked: the connection is pinned to it. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

export interface SafeFetchFactory {
  /** A fetch for one call budget: every request it makes ends within `timeoutMs`. */
  create(timeoutMs: number): SafeFetch;
  close(): Promise<void>;
}

/**
 * Outbound calls to provider URLs under the webhook-target rules (admin-api-v1.md,
 * "Integrations"): the host is resolved and every address must be public unless private targets
 * are allowed; the connection is pinned to the checked address (no DNS rebinding); redirects
 * are not followed (a 3xx reaches the adapter, which refuses it); each call has a deadline.
 * Keep-alive agents are shared per address, so calls to one provider reuse connections.
 */
export function createSafeFetch(opts: { allowPrivate: boolean; resolve?: Resolver }): SafeFetchFactory {
  const resolve = opts.resolve ?? systemResolver;
  const agents = new Map<string, { agent: Agent; lastUsed: number }>();
  const sweeper = setInterval(() => {
    const before = Date.now() - AGENT_IDLE_MS;
    for (const [key, entry] of agents) {
      if (entry.lastUsed >= before) continue;
      agents.delete(key);
      void entry.agent.close().catch(() => undefined);
    }
  }, AGENT_IDLE_MS);
  sweeper.unref();

  const agentFor = (address: string, family: 4 | 6): Agent => {
    const key = `${family}|${address}`;
    const existing = agents.get(key);
    if (existing) {
      existing.lastUsed = Date.now();
      return existing.agent;
    }
    const agent = new Agent({ connect: { lookup: pinnedLookup(address, family) }, pipelining: 1 });
    agents.set(key, { agent, lastUsed: Date.now() });
    return agent;
  };

  const target = async (url: URL): Promise<{ address: string; family: 4 | 6 }> => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ProviderError('rejected', `unsupported scheme ${url.protocol}`);
    if (url.username || url.password) throw new ProviderError('rejected', 'credentials in the URL are not allowed');
    const host = normaliseHost(url.hostname);
    let addresses: Array<{ address: string; family: number }>;
    if (isIpLiteral(host)) addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
    else {
      try {
        addresses = await resolve(host);
      } catch (err) {
        throw new ProviderError('unavailable', `could not resolve '${host}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
    }
    if (!opts.allowPrivate) {
      const verdict = assessHost(host, addresses.map((a) => a.address));
      if (!verdict.allowed) throw new ProviderError('rejected', `refused: ${verdict.reason}`);
    }
    const first = addresses[0];
    if (!first) throw new ProviderError('unavailable', `'${host}' resolves to no address`);
    return { address: first.address, family: first.family === 6 ? 6 : 4 };
  };

  return {
    create(timeoutMs) {
      return async (input, init) => {
        const url = new URL(typeof input === 'string' ? input : input.href);
        const pinned = await target(url);
        const deadline = new Deadline(timeoutMs, init?.signal ?? undefined);
        try {
          const answer = await request(url, {
            method: (init?.method?.toUpperCase() ?? 'GET') as Dispatcher.HttpMethod,
            headers: headersOf(init?.headers),
            body: bodyOf(init?.body),
            signal: deadline.signal,
            dispatcher: agentFor(pinned.address, pinned.family),
          });
          const body = await readCapped(answer.body);
          const response = new Response(NULL_BODY_STATUSES.has(answer.statusCode) ? null : body, { status: answer.statusCode, headers: responseHeaders(answer.headers) });
          Object.defineProperty(response, 'url', { value: url.href });
          return response as unknown as globalThis.Response;
        } catch (err) {
          if (err instanceof ProviderError) throw err;
          if (deadline.expired) throw new ProviderError('unavailable', `no answer within ${timeoutMs} ms`);
          throw new ProviderError('unavailable', `request failed: ${causeOf(err)}`);
        } finally {
          deadline.clear();
        }
      };
    },
    async close() {
      clearInterval(sweeper);
      const all = [...agents.values()];
      agents.clear();
      await Promise.all(all.map((e) => e.agent.destroy().catch(() => undefined)));
    },
  };
}

/**
 * One call's deadline, covering the connection, the answer and reading its body. An
 * EventEmitter is what undici's \`request\` takes as a signal, and costs a timer rather than
 * the AbortSignals \`fetch\` needs (a measurable share of a busy worker's CPU).
 */
class Deadline {
  readonly signal = new EventEmitter();
  expired = false;
  readonly #timer: NodeJS.Timeout;
  readonly #outer: AbortSignal | undefined;
  readonly #onOuterAbort = () => this.signal.emit('abort');

  constructor(timeoutMs: number, outer: AbortSignal | undefined) {
    this.#timer = setTimeout(() => {
      this.expired = true;
      this.signal.emit('abort');
    }, timeoutMs);
    this.#outer = outer;
    if (outer?.aborted) queueMicrotask(this.#onOuterAbort);
    else outer?.addEventListener('abort', this.#onOuterAbort, { once: true });
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#outer?.removeEventListener('abort', this.#onOuterAbort);
  }
}

/** The request headers an SDK hands fetch (a record, pairs or a Headers) as undici's request takes them. */
function headersOf(headers: RequestInit['headers']): Record<string, string> | undefined {
  if (!headers) return undefined;
  if (Array.isArray(headers) || headers instanceof globalThis.Headers || headers instanceof Headers) return Object.fromEntries(new Headers(headers as [string, string][]));
  return headers as Record<string, string>;
}

/** The request bodies SDKs send providers: JSON or form text, or bytes. */
function bodyOf(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (body instanceof URLSearchParams) return body.toString();
  throw new ProviderError('rejected', 'unsupported request body');
}

async function readCapped(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > MAX_RESPONSE_BYTES) throw new ProviderError('unavailable', `answer larger than ${MAX_RESPONSE_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function responseHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.append(name, value);
  }
  return headers;
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

/** The ProviderError an SDK wrapped (in `cause`, `error` or `response`), if there is one. */
export function providerErrorIn(err: unknown): ProviderError | undefined {
  for (let current: unknown = err, depth = 0; current && depth < 6; depth++) {
    if (current instanceof ProviderError) return current;
    const next = current as { cause?: unknown; error?: unknown };
    current = next.cause ?? next.error;
  }
  return undefined;
}
