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
  constructor() {
    super('circuit breaker open');
  }
}

type Action = () => Promise<unknown>;

interface Entry {
  breaker: CircuitBreaker<[Action], unknown>;
  lastUsed: number;
}

const IDLE_EVICT_MS = 10 * 60_000;

/**
 * One opossum breaker per endpoint (per replica). Opened by timeouts and connection errors
 * (`UnhealthyResult`), the failures that hold the sender's connections and time; any HTTP
 * answer, 5xx included, came back fast and counts as a success for the breaker although the
 * attempt failed. While a breaker is open (and while its one half-open trial runs), an attempt
 * that comes due fails at once without a request: the contract's clock is kept, never
 * postponed (docs/webhooks.md, "Retries, timeouts and disabling").
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
      const created: Entry = { breaker, lastUsed: Date.now() };
      breaker.on('open', () => {
        this.#transitions.inc({ state: 'open' });
        this.#log.warn({ endpointId, halfOpenInMs: this.#opts.resetTimeoutMs }, 'endpoint circuit breaker opened; attempts due meanwhile fail without a request');
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

  /** Forgets the endpoint's breaker (the operator re-enabled it): its next attempt is sent. */
  reset(endpointId: string): void {
    const entry = this.#entries.get(endpointId);
    if (!entry) return;
    entry.breaker.shutdown();
    this.#entries.delete(endpointId);
    if (!entry.breaker.closed) this.#transitions.inc({ state: 'closed' });
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
        throw new BreakerOpen();
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
