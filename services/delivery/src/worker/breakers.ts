import CircuitBreaker from 'opossum';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '@preflight/log';

export interface BreakerOptions {
  resetTimeoutMs: number;
  volumeThreshold: number;
  errorThresholdPercentage: number;
  rollingWindowMs: number;
}

/** Thrown inside the breaker for an unhealthy result, so opossum counts it; carries the result. */
export class UnhealthyResult<T> extends Error {
  override readonly name = 'UnhealthyResult';
  constructor(readonly result: T) {
    super('unhealthy endpoint');
  }
}

/** The breaker refused to let an attempt through (open, or half-open with its trial in flight). */
export class BreakerOpen extends Error {
  override readonly name = 'BreakerOpen';
  constructor(readonly retryAt: Date) {
    super('circuit breaker open');
  }
}

type Action = () => Promise<unknown>;

interface Entry {
  breaker: CircuitBreaker<[Action], unknown>;
  /** When an open breaker half-opens. */
  halfOpenAt: number;
  lastUsed: number;
}

const IDLE_EVICT_MS = 10 * 60_000;

/**
 * One opossum breaker per endpoint (per replica). Opened by timeouts, connection errors and
 * 5xx (`UnhealthyResult`); a 3xx or 4xx means the endpoint is up, so it counts as a success
 * for the breaker although the attempt failed. While a breaker is open, the scheduler does not
 * send that endpoint's due attempts: it moves them to `halfOpenAt` without using an attempt.
 */
export class Breakers {
  readonly #entries = new Map<string, Entry>();
  readonly #opts: BreakerOptions;
  readonly #log: Logger;
  readonly #transitions: Counter<'state'>;
  readonly #evictTimer: NodeJS.Timeout;

  constructor(opts: BreakerOptions, logger: Logger, registry: Registry) {
    this.#opts = opts;
    this.#log = logger.child({ component: 'breaker' });
    const entries = this.#entries;
    this.#transitions =
      (registry.getSingleMetric('delivery_circuit_breaker_transitions_total') as Counter<'state'> | undefined) ??
      new Counter({ name: 'delivery_circuit_breaker_transitions_total', help: 'Per-endpoint circuit breaker transitions, by the state entered (open, half_open, closed).', labelNames: ['state'], registers: [registry] });
    if (!registry.getSingleMetric('delivery_circuit_breakers_open')) {
      new Gauge({
        name: 'delivery_circuit_breakers_open',
        help: 'Endpoint circuit breakers in this replica that are open or half-open.',
        registers: [registry],
        collect() {
          let n = 0;
          for (const e of entries.values()) if (!e.breaker.closed) n += 1;
          this.set(n);
        },
      });
    }
    this.#evictTimer = setInterval(() => this.#evictIdle(), 60_000);
    this.#evictTimer.unref();
  }

  #entry(endpointId: string): Entry {
    let entry = this.#entries.get(endpointId);
    if (!entry) {
      const breaker = new CircuitBreaker<[Action], unknown>((action: Action) => action(), {
        timeout: false, // the attempt bounds itself (DELIVERY_ATTEMPT_TIMEOUT_MS)
        resetTimeout: this.#opts.resetTimeoutMs,
        volumeThreshold: this.#opts.volumeThreshold,
        errorThresholdPercentage: this.#opts.errorThresholdPercentage,
        rollingCountTimeout: this.#opts.rollingWindowMs,
        rollingCountBuckets: 10,
        // Neither is read here (attempt latency is our own histogram), and both cost at
        // saturation: percentiles keep every success's latency in the window and sort them all
        // at each snapshot (every second) and at each failure; snapshots compute the window's
        // stats every second per breaker.
        rollingPercentilesEnabled: false,
        enableSnapshots: false,
        name: endpointId,
      });
      const created: Entry = { breaker, halfOpenAt: 0, lastUsed: Date.now() };
      breaker.on('open', () => {
        created.halfOpenAt = Date.now() + this.#opts.resetTimeoutMs;
        this.#transitions.inc({ state: 'open' });
        this.#log.warn({ endpointId, retryAt: new Date(created.halfOpenAt).toISOString() }, 'endpoint circuit breaker opened; attempts deferred');
      });
      breaker.on('halfOpen', () => {
        this.#transitions.inc({ state: 'half_open' });
        this.#log.info({ endpointId }, 'endpoint circuit breaker half-open; one trial attempt');
      });
      breaker.on('close', () => {
        this.#transitions.inc({ state: 'closed' });
        this.#log.info({ endpointId }, 'endpoint circuit breaker closed');
      });
      entry = created;
      this.#entries.set(endpointId, entry);
    }
    entry.lastUsed = Date.now();
    return entry;
  }

  /**
   * When an endpoint's attempts may be sent again: undefined when they may go now. An open
   * breaker answers its half-open time; a half-open one lets `capacity` be 1 (its trial).
   */
  blockedUntil(endpointId: string): Date | undefined {
    const entry = this.#entries.get(endpointId);
    if (!entry || !entry.breaker.opened) return undefined;
    return new Date(Math.max(entry.halfOpenAt, Date.now()));
  }

  /** Endpoints whose breaker is not closed: open ones with the moment they half-open, half-open ones without. */
  notClosed(): Array<{ endpointId: string; blockedUntil: Date | undefined }> {
    const out = [];
    for (const [endpointId, entry] of this.#entries) {
      if (entry.breaker.closed) continue;
      out.push({ endpointId, blockedUntil: entry.breaker.opened ? new Date(Math.max(entry.halfOpenAt, Date.now())) : undefined });
    }
    return out;
  }

  /** Attempts of this endpoint that may run at once, given `max`: 1 while half-open (the trial). */
  capacity(endpointId: string, max: number): number {
    const entry = this.#entries.get(endpointId);
    return entry?.breaker.halfOpen ? 1 : max;
  }

  /**
   * Runs `action` through the endpoint's breaker. Its `UnhealthyResult` is counted as a
   * failure and unwrapped; a refusal by the breaker throws `BreakerOpen`.
   */
  async fire<T>(endpointId: string, action: () => Promise<T>): Promise<T> {
    const entry = this.#entry(endpointId);
    try {
      return (await entry.breaker.fire(action)) as T;
    } catch (err) {
      if (err instanceof UnhealthyResult) return err.result as T;
      if ((err as NodeJS.ErrnoException).code === 'EOPENBREAKER') {
        throw new BreakerOpen(new Date(Math.max(entry.halfOpenAt, Date.now() + Math.min(1_000, this.#opts.resetTimeoutMs))));
      }
      throw err;
    }
  }

  #evictIdle(): void {
    const cutoff = Date.now() - IDLE_EVICT_MS;
    for (const [id, entry] of this.#entries) {
      if (entry.lastUsed < cutoff && entry.breaker.closed) {
        entry.breaker.shutdown();
        this.#entries.delete(id);
      }
    }
  }

  shutdown(): void {
    clearInterval(this.#evictTimer);
    for (const entry of this.#entries.values()) entry.breaker.shutdown();
    this.#entries.clear();
  }
}
