import type { Dispatcher } from 'undici';
import type { PinnedAgents } from './agents.ts';
import type { Deadline } from './deadlines.ts';
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
  /** A timeout or a connection error: what counts against the endpoint's breaker (an HTTP answer of any status does not). */
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

type Resolve = (result: PostResult) => void;

/**
 * The answer of one POST, taken chunk by chunk as undici hands it over (its dispatch API):
 * no response stream and no promise per chunk, in a process that spends most of its time
 * sending (`request()` and its body stream cost far more; docs/benchmarks-history.md).
 */
class ResponseCapture implements Dispatcher.DispatchHandler {
  #status: number | null = null;
  #kept: Buffer[] = [];
  #keptBytes = 0;
  #readBytes = 0;
  #controller: Dispatcher.DispatchController | undefined;
  #settled = false;
  readonly #onExpire = () => {
    // Before the request reached a socket there is nothing to abort yet (undici bounds the
    // connect by the agent's own timeout, and onRequestStart aborts it then); the attempt is
    // over for the caller now either way.
    this.#settle({ statusCode: this.#status, responseBody: null, error: `timed out after ${this.timeoutMs} ms`, delivered: false, unhealthy: true });
    this.#controller?.abort(new Error('attempt timed out'));
  };

  constructor(
    private readonly resolve: Resolve,
    private readonly deadline: Deadline,
    private readonly timeoutMs: number,
  ) {
    if (deadline.expired) this.#onExpire();
    else deadline.onExpire = this.#onExpire;
  }

  /** The attempt is over for the caller (answered, failed or timed out). */
  get settled(): boolean {
    return this.#settled;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#settled) controller.abort(new Error('attempt timed out'));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.#status = statusCode;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#readBytes += chunk.length;
    if (this.#keptBytes < RESPONSE_BODY_LIMIT) {
      const part = chunk.subarray(0, RESPONSE_BODY_LIMIT - this.#keptBytes);
      this.#kept.push(part);
      this.#keptBytes += part.length;
    }
    // Enough read: the rest is not waited for (the connection is closed).
    if (this.#readBytes >= READ_LIMIT) {
      this.#answered();
      controller.abort(new Error('response read limit reached'));
    }
  }

  onResponseEnd(): void {
    this.#answered();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.deadline.expired) return this.#onExpire();
    const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    const code = e.code ?? e.cause?.code;
    this.#settle({ statusCode: null, responseBody: null, error: `connection failed: ${code ? `${code} ` : ''}${e.cause?.message ?? e.message}`.trim(), delivered: false, unhealthy: true });
  }

  #answered(): void {
    const status = this.#status ?? 0;
    const responseBody = this.#keptBytes > 0 ? decodePrefix(Buffer.concat(this.#kept)) : '';
    if (status >= 200 && status < 300) return this.#settle({ statusCode: status, responseBody, error: null, delivered: true, unhealthy: false });
    if (status >= 300 && status < 400) return this.#settle({ statusCode: status, responseBody, error: `redirect (${status}) not followed`, delivered: false, unhealthy: false });
    this.#settle({ statusCode: status, responseBody, error: `answered ${status}`, delivered: false, unhealthy: false });
  }

  #settle(result: PostResult): void {
    if (this.#settled) return;
    this.#settled = true;
    if (this.deadline.onExpire === this.#onExpire) this.deadline.onExpire = undefined;
    this.resolve(result);
  }
}

/**
 * One POST of the stored body to the checked address. Redirects are never followed (a 3xx is a
 * failure). Connect, headers and the body are all bounded by the attempt's `deadline`.
 */
export function post(url: URL, target: Extract<Target, { ok: true }>, body: Buffer, headers: Record<string, string>, opts: { deadline: Deadline; timeoutMs: number; agents: PinnedAgents }): Promise<PostResult> {
  const agent = opts.agents.for(target.address, target.family);
  return new Promise<PostResult>((resolve) => {
    const capture = new ResponseCapture(resolve, opts.deadline, opts.timeoutMs);
    if (!capture.settled) agent.dispatch({ origin: url.origin, path: `${url.pathname}${url.search}`, method: 'POST', body, headers }, capture);
  });
}
