import type { RateLimitDecision, RateLimitPolicy, RateLimiter } from './policy.ts';

/** One admission held in a log: when (ms, this process's clock) and a number naming it. */
export interface LocalAdmission {
  at: number;
  seq: number;
}

/** The outcome of `reserve`: the decision and, when admitted, the number of the admission recorded. */
export interface Reservation {
  decision: RateLimitDecision;
  seq?: number;
}

interface Log {
  at: number[];
  seq: number[];
}

/**
 * The same sliding log in process memory. It mirrors every admission this replica makes,
 * Redis up or down (rate-limit/failover-limiter.ts), so it already holds the last window when
 * Redis fails or comes back empty. Alone, each replica enforces the limit on its own traffic:
 * N replicas admit up to N×limit per key during an outage.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, Log>();
  private readonly windowMs: number;
  private sequence = 0;

  constructor(
    private readonly policy: RateLimitPolicy,
    private readonly now: () => number = Date.now,
  ) {
    this.windowMs = policy.windowSeconds * 1000;
  }

  async check(subject: string): Promise<RateLimitDecision> {
    return this.reserve(subject).decision;
  }

  /** Admits and records (synchronously, so concurrent requests cannot overtake) or refuses. */
  reserve(subject: string): Reservation {
    const now = this.now();
    const log = this.live(subject, now);
    if (log.at.length >= this.policy.limit) return { decision: this.decide(false, log, now) };
    this.sequence = (this.sequence + 1) % Number.MAX_SAFE_INTEGER;
    log.at.push(now);
    log.seq.push(this.sequence);
    this.logs.set(subject, log);
    return { decision: this.decide(true, log, now), seq: this.sequence };
  }

  /** Takes back a reservation the shared log refused: it was never an admission. */
  cancel(subject: string, seq: number): void {
    const log = this.logs.get(subject);
    if (!log) return;
    const i = log.seq.lastIndexOf(seq);
    if (i < 0) return;
    log.at.splice(i, 1);
    log.seq.splice(i, 1);
    if (log.at.length === 0) this.logs.delete(subject);
  }

  /** The admissions still inside the window, oldest first. */
  admissions(subject: string): LocalAdmission[] {
    const log = this.live(subject, this.now());
    return log.at.map((at, i) => ({ at, seq: log.seq[i]! }));
  }

  /** How many admissions are inside the window (`admissions(subject).length` without the copy). */
  count(subject: string): number {
    return this.live(subject, this.now()).at.length;
  }

  /** Subjects with a log (possibly expired: `admissions` tells). */
  subjects(): string[] {
    return [...this.logs.keys()];
  }

  /** The subject's log without its expired entries (a prefix: entries are in admission order). */
  private live(subject: string, now: number): Log {
    const log = this.logs.get(subject) ?? { at: [], seq: [] };
    let expired = 0;
    while (expired < log.at.length && log.at[expired]! <= now - this.windowMs) expired += 1;
    if (expired > 0) {
      log.at.splice(0, expired);
      log.seq.splice(0, expired);
    }
    if (log.at.length === 0) this.logs.delete(subject);
    return log;
  }

  private decide(admitted: boolean, log: Log, now: number): RateLimitDecision {
    const oldest = log.at[0];
    const resetMs = oldest === undefined ? this.windowMs : oldest + this.windowMs - now;
    return {
      admitted,
      remaining: Math.max(0, this.policy.limit - log.at.length),
      resetSeconds: Math.max(0, Math.ceil(resetMs / 1000)),
      nowEpochSeconds: Math.floor(now / 1000),
    };
  }

  /** Forget logs that have fully expired, so keys seen once do not stay in memory. */
  sweep(): void {
    const cutoff = this.now() - this.windowMs;
    for (const [subject, log] of this.logs) {
      if (log.at.length === 0 || log.at[log.at.length - 1]! <= cutoff) this.logs.delete(subject);
    }
  }
}
