import { Gauge, type Registry } from 'prom-client';

export type ReadinessCheck = () => Promise<void>;

/**
 * A dependency the process watches. `gate` says what its outage does to `/readyz`:
 * - `grace` (the default for a bare function): the pod turns unready once the dependency has
 *   been failing for longer than the grace period (a blip of a few seconds takes no pod out);
 * - `never`: never fails readiness (the pod can still serve without it, e.g. NATS behind the
 *   outbox); its state shows in `/healthz` and the `dependency_up` metric only.
 */
export interface DependencyCheck {
  check: ReadinessCheck;
  gate?: 'grace' | 'never';
}

export interface DependencyState {
  up: boolean;
  /** When the current outage began (the first failed check in a row); undefined while up. */
  downSince: number | undefined;
  error: string | undefined;
  /** When it was last checked (undefined: never yet). */
  checkedAt: number | undefined;
}

/** How long one check may take before it counts as failed. */
export const CHECK_TIMEOUT_MS = 2000;
/** Default READINESS_GRACE_MS: how long a gated dependency may fail before the pod is unready. */
export const DEFAULT_READINESS_GRACE_MS = 10_000;

interface Entry {
  name: string;
  check: ReadinessCheck;
  gate: 'grace' | 'never';
  state: DependencyState;
}

export interface Readiness {
  /** Whether the pod can serve, by the grace rule, after a fresh round of checks. */
  ready: boolean;
  checks: Record<string, string>;
}

/**
 * The dependencies of one process and what was last seen of them. Checked when asked (`/readyz`,
 * a `/metrics` scrape), never on a timer; concurrent asks share one round. `/healthz` reads the
 * last state without waiting (liveness never waits on a dependency).
 */
export class Dependencies {
  readonly #entries: Entry[];
  readonly #graceMs: number;
  readonly #now: () => number;
  #round: Promise<void> | undefined;

  constructor(checks: Record<string, ReadinessCheck | DependencyCheck>, opts: { graceMs?: number | undefined; registry?: Registry | undefined; now?: () => number } = {}) {
    this.#graceMs = Math.max(0, opts.graceMs ?? DEFAULT_READINESS_GRACE_MS);
    this.#now = opts.now ?? Date.now;
    this.#entries = Object.entries(checks).map(([name, c]) => {
      const spec = typeof c === 'function' ? { check: c } : c;
      return { name, check: spec.check, gate: spec.gate ?? 'grace', state: { up: true, downSince: undefined, error: undefined, checkedAt: undefined } };
    });
    if (opts.registry && this.#entries.length > 0) {
      // Read at scrape: each scrape runs a round of checks (bounded by CHECK_TIMEOUT_MS).
      const entries = this.#entries;
      const refresh = () => this.refresh();
      new Gauge({
        name: 'dependency_up',
        help: 'Whether a dependency answered its last check (1) or not (0), checked at scrape; label gates: whether an outage longer than READINESS_GRACE_MS fails /readyz.',
        labelNames: ['dependency', 'gates'],
        registers: [opts.registry],
        async collect() {
          await refresh();
          for (const e of entries) this.set({ dependency: e.name, gates: e.gate === 'grace' ? 'readiness' : 'none' }, e.state.up ? 1 : 0);
        },
      });
    }
  }

  /** Runs every check once (joins a round in flight). */
  refresh(): Promise<void> {
    this.#round ??= Promise.all(this.#entries.map((e) => this.#checkOne(e))).then(
      () => {
        this.#round = undefined;
      },
      () => {
        this.#round = undefined;
      },
    );
    return this.#round;
  }

  async #checkOne(e: Entry): Promise<void> {
    try {
      await withTimeout(e.check(), CHECK_TIMEOUT_MS);
      e.state = { up: true, downSince: undefined, error: undefined, checkedAt: this.#now() };
    } catch (err) {
      const now = this.#now();
      e.state = { up: false, downSince: e.state.downSince ?? now, error: (err as Error).message, checkedAt: now };
    }
  }

  /** `/readyz`: a fresh round, then ready unless a gated dependency has been down longer than the grace. */
  async readiness(): Promise<Readiness> {
    await this.refresh();
    const now = this.#now();
    const checks: Record<string, string> = {};
    let ready = true;
    for (const e of this.#entries) {
      const s = e.state;
      if (s.up) {
        checks[e.name] = 'ok';
        continue;
      }
      const downMs = now - (s.downSince ?? now);
      const failing = e.gate === 'grace' && downMs >= this.#graceMs;
      if (failing) ready = false;
      const why = e.gate === 'never' ? 'not needed to serve' : failing ? `down for ${downMs} ms` : `within the ${this.#graceMs} ms grace`;
      checks[e.name] = `unavailable (${why}): ${s.error}`;
    }
    return { ready, checks };
  }

  /** `/healthz`'s details: the last state seen, without checking. */
  snapshot(): Record<string, { status: 'up' | 'down' | 'unknown'; since?: string; error?: string; gatesReadiness: boolean }> {
    const out: ReturnType<Dependencies['snapshot']> = {};
    for (const e of this.#entries) {
      const s = e.state;
      const status = s.checkedAt === undefined ? 'unknown' : s.up ? 'up' : 'down';
      out[e.name] = {
        status,
        ...(s.downSince !== undefined ? { since: new Date(s.downSince).toISOString() } : {}),
        ...(s.error !== undefined ? { error: s.error } : {}),
        gatesReadiness: e.gate === 'grace',
      };
    }
    return out;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e) => (clearTimeout(timer), reject(e)),
    );
  });
}
