import CircuitBreaker from 'opossum';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '@preflight/log';

export interface BreakerOptions {
  /** Metric names start with it: `<prefix>_circuit_breaker_transitions_total`, `<prefix>_circuit_breakers_open`. */
  metricPrefix: string;
  /** What one breaker guards, for help texts and logs: "endpoint", "connection". */
  subject: string;
  /** What happens to calls while a breaker is open, for the log line. */
  whileOpen: string;
  resetTimeoutMs: number;
  volumeThreshold: number;
  errorThresholdPercentage: number;
  rollingWindowMs: number;
}

/**
 * An Error without a stack: breaker refusals and unhealthy results come in bursts (every due
 * attempt of an endpoint whose breaker just opened), their stacks say nothing, and capturing
 * one cost more than the rest of a refused attempt.
 */
function stackless<E extends Error>(make: () => E): E {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Thrown inside the breaker for an unhealthy result, so opossum counts it; carries the result. */
export class UnhealthyResult<T> extends Error {
  override readonly name = 'UnhealthyResult';
  private constructor(readonly result: T) {
    super('unhealthy result');
  }

  static of<T>(result: T): UnhealthyResult<T> {
    return stackless(() => new UnhealthyResult(result));
  }
}

export type BreakerState = 'closed' | 'open' | 'half-open';

/** The breaker refused to let an attempt through (open, or half-open with its trial in flight). */
export class BreakerOpen extends Error {
  override readonly name = 'BreakerOpen';
  private constructor() {
    super('circuit breaker open');
  }

  /** The one refusal: it carries nothing of its own. */
  static readonly refusal = stackless(() => new BreakerOpen());
}

type Action = () => Promise<unknown>;

interface Entry {
  breaker: CircuitBreaker<[Action], unknown>;
  lastUsed: number;
}

const IDLE_EVICT_MS = 10 * 60_000;

/**
 * One opossum breaker per key (an endpoint, a connection), per replica. Opened by the failures
 * the caller marks `UnhealthyResult` (timeouts and connection errors, the ones that hold the
 * sender's connections and time); anything else counts as a success. A refusal by an open
 * breaker (or by a half-open one whose trial is in flight) throws `BreakerOpen`; what that
 * means is the caller's rule (delivery: the attempt fails at once, docs/webhooks.md).
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
      (registry.getSingleMetric(`${opts.metricPrefix}_circuit_breaker_transitions_total`) as Counter<'state'> | undefined) ??
      new Counter({ name: `${opts.metricPrefix}_circuit_breaker_transitions_total`, help: `Per-${opts.subject} circuit breaker transitions, by the state entered (open, half_open, closed).`, labelNames: ['state'], registers: [registry] });
    if (!registry.getSingleMetric(`${opts.metricPrefix}_circuit_breakers_open`)) {
      new Gauge({
        name: `${opts.metricPrefix}_circuit_breakers_open`,
        help: `${opts.subject[0]!.toUpperCase()}${opts.subject.slice(1)} circuit breakers in this replica that are open or half-open.`,
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

  #entry(key: string): Entry {
    let entry = this.#entries.get(key);
    if (!entry) {
      const breaker = new CircuitBreaker<[Action], unknown>((action: Action) => action(), {
        timeout: false, // the caller bounds its own calls
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
        name: key,
      });
      const subject = this.#opts.subject;
      const ids = { [`${subject}Id`]: key };
      const created: Entry = { breaker, lastUsed: Date.now() };
      breaker.on('open', () => {
        this.#transitions.inc({ state: 'open' });
        this.#log.warn({ ...ids, halfOpenInMs: this.#opts.resetTimeoutMs }, `${subject} circuit breaker opened; ${this.#opts.whileOpen}`);
      });
      breaker.on('halfOpen', () => {
        this.#transitions.inc({ state: 'half_open' });
        this.#log.info(ids, `${subject} circuit breaker half-open; one trial call`);
      });
      breaker.on('close', () => {
        this.#transitions.inc({ state: 'closed' });
        this.#log.info(ids, `${subject} circuit breaker closed`);
      });
      entry = created;
      this.#entries.set(key, entry);
    }
    entry.lastUsed = Date.now();
    return entry;
  }

  /** Forgets a key's breaker (re-enabled, new credentials): its next call is let through. */
  reset(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    entry.breaker.shutdown();
    this.#entries.delete(key);
    if (!entry.breaker.closed) this.#transitions.inc({ state: 'closed' });
  }

  /** Where a key's breaker stands (closed when it has none). */
  state(key: string): BreakerState {
    const breaker = this.#entries.get(key)?.breaker;
    if (!breaker || breaker.closed) return 'closed';
    return breaker.halfOpen ? 'half-open' : 'open';
  }

  /** The keys whose breaker is open or half-open. */
  notClosed(): string[] {
    return [...this.#entries].filter(([, e]) => !e.breaker.closed).map(([key]) => key);
  }

  /**
   * Runs `action` through the key's breaker. Its `UnhealthyResult` is counted as a
   * failure and unwrapped; a refusal by the breaker throws `BreakerOpen`.
   */
  async fire<T>(key: string, action: () => Promise<T>): Promise<T> {
    const entry = this.#entry(key);
    // What opossum would refuse (open, or half-open with its trial under way), refused here
    // without its error and 'reject' event (neither is read).
    if (!entry.breaker.closed && !entry.breaker.pendingClose) throw BreakerOpen.refusal;
    try {
      return (await entry.breaker.fire(action)) as T;
    } catch (err) {
      if (err instanceof UnhealthyResult) return err.result as T;
      if ((err as NodeJS.ErrnoException).code === 'EOPENBREAKER') throw BreakerOpen.refusal;
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
