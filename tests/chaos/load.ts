import { Agent, request } from 'undici';

/** One issue filing through the gateway, as the client saw it. */
export interface Attempt {
  /** Its number in the run: the issue's title ends with `#n`, so a stored issue names its attempt. */
  n: number;
  campaignId: string;
  sentAt: number;
  /** When the answer (or the error) arrived; undefined while in flight. */
  endAt?: number;
  status?: number;
  /** A transport error instead of an answer: ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET (closed mid-request), UND_ERR_HEADERS_TIMEOUT… */
  error?: string;
  retryAfter?: string | null;
  /** Last segment of a problem's `type` (upstream-unavailable, dependency-unavailable…). */
  problem?: string;
  /** Non-2xx answers: the body (cut to 300 characters), kept as evidence. */
  body?: string;
  issueId?: string;
  seqNumber?: number;
  /** Sent with an Idempotency-Key of its own (never reused: the load does not retry). */
  keyed?: boolean;
}

export interface Target {
  campaignId: string;
  apiKey: string;
}

export const issueTitle = (tag: string, n: number) => `Chaos ${tag} #${n}`;
export const attemptOf = (title: string): number | undefined => {
  const m = /#(\d+)$/.exec(title);
  return m ? Number(m[1]) : undefined;
};

const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Files issues through the gateway's public API (POST /api/v1/campaigns/:id/issues), round
 * robin over `targets`, at `ratePerS` as an open loop (each filing is due at its time, however
 * long earlier ones take; at most `maxInFlight` outstanding, beyond that a due filing is recorded
 * as not sent). No retries and no Idempotency-Key: every attempt is one request, recorded as the
 * client saw it.
 */
export class Load {
  readonly attempts: Attempt[] = [];
  /** Filings due while `maxInFlight` were outstanding: never sent. */
  skipped = 0;
  #next = 1;
  #inFlight = new Set<Promise<void>>();
  #running = false;
  #loop: Promise<void> | undefined;
  readonly #agent: Agent;

  constructor(
    private readonly gatewayUrl: string,
    private readonly targets: Target[],
    private readonly tag: string,
    /** Share of filings that carry an Idempotency-Key (every `1/keyedShare`-th), so the gateway's Redis-backed idempotency is on the path of those. */
    private readonly keyedShare = 0,
    private readonly maxInFlight = 256,
  ) {
    this.#agent = new Agent({ connections: 128, keepAliveTimeout: 4_000, headersTimeout: REQUEST_TIMEOUT_MS, bodyTimeout: REQUEST_TIMEOUT_MS, connect: { timeout: 5_000 } });
  }

  /** Files one issue now (also used for the warm-up) and records it. */
  file(target: Target = this.targets[(this.#next - 1) % this.targets.length]!): Promise<Attempt> {
    const n = this.#next++;
    const a: Attempt = { n, campaignId: target.campaignId, sentAt: Date.now() };
    if (this.keyedShare > 0 && Math.floor(n * this.keyedShare) !== Math.floor((n - 1) * this.keyedShare)) a.keyed = true;
    this.attempts.push(a);
    const done = this.#send(a, target);
    const tracked = done.then(() => undefined);
    this.#inFlight.add(tracked);
    void tracked.finally(() => this.#inFlight.delete(tracked));
    return done;
  }

  async #send(a: Attempt, target: Target): Promise<Attempt> {
    try {
      const res = await request(`${this.gatewayUrl}/api/v1/campaigns/${target.campaignId}/issues`, {
        dispatcher: this.#agent,
        method: 'POST',
        headers: { 'x-api-key': target.apiKey, 'content-type': 'application/json', ...(a.keyed ? { 'idempotency-key': `chaos-${this.tag}-${a.n}` } : {}) },
        body: JSON.stringify({ title: issueTitle(this.tag, a.n), severity: 'High', type: 'Bug', description: 'Filed by the chaos suite.' }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS + 5_000),
      });
      const text = await res.body.text();
      a.status = res.statusCode;
      const ra = res.headers['retry-after'];
      a.retryAfter = Array.isArray(ra) ? ra.join(',') : (ra ?? null);
      let json: any;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      if (res.statusCode === 201 && json) {
        a.issueId = json.id;
        a.seqNumber = json.seqNumber;
      } else {
        a.body = text.slice(0, 300);
        if (json && typeof json.type === 'string') a.problem = json.type.split('/').pop();
      }
    } catch (err) {
      const e = err as Error & { code?: string; cause?: { code?: string } };
      a.error = e.code ?? e.cause?.code ?? e.name ?? 'error';
      a.body = e.message.slice(0, 300);
    } finally {
      a.endAt = Date.now();
    }
    return a;
  }

  start(ratePerS: number): void {
    this.#running = true;
    const interval = 1000 / ratePerS;
    const t0 = performance.now();
    this.#loop = (async () => {
      for (let i = 0; this.#running; i++) {
        const wait = t0 + i * interval - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (!this.#running) break;
        if (this.#inFlight.size >= this.maxInFlight) this.skipped++;
        else void this.file();
      }
    })();
  }

  /** Stops filing and waits for the filings in flight to end. */
  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
    await Promise.allSettled([...this.#inFlight]);
  }

  /** Stops filing and drops whatever is in flight (cleanup: an abort must not wait for answers). */
  async close(): Promise<void> {
    this.#running = false;
    await this.#agent.destroy();
    await this.#loop;
  }
}
