import type { RateLimitDecision, RateLimitPolicy, RateLimiter } from './policy.ts';

/**
 * The same sliding log in process memory, used only while Redis is unreachable. Each replica
 * then enforces the limit on its own traffic: N replicas admit up to N×limit per key during an
 * outage, which we accept over refusing every request or admitting without limit.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, number[]>();
  private readonly windowMs: number;

  constructor(
    private readonly policy: RateLimitPolicy,
    private readonly now: () => number = Date.now,
  ) {
    this.windowMs = policy.windowSeconds * 1000;
  }

  async check(subject: string): Promise<RateLimitDecision> {
    const now = this.now();
    const log = this.logs.get(subject) ?? [];
    // Entries are in admission order, so the expired ones are a prefix.
    let expired = 0;
    while (expired < log.length && log[expired]! <= now - this.windowMs) expired += 1;
    if (expired > 0) log.splice(0, expired);

    const admitted = log.length < this.policy.limit;
    if (admitted) log.push(now);
    if (log.length > 0) this.logs.set(subject, log);
    else this.logs.delete(subject);

    const oldest = log[0];
    const resetMs = oldest === undefined ? this.windowMs : oldest + this.windowMs - now;
    return {
      admitted,
      remaining: Math.max(0, this.policy.limit - log.length),
      resetSeconds: Math.max(0, Math.ceil(resetMs / 1000)),
      nowEpochSeconds: Math.floor(now / 1000),
    };
  }

  /** Forget logs that have fully expired, so keys seen once do not stay in memory. */
  sweep(): void {
    const cutoff = this.now() - this.windowMs;
    for (const [subject, log] of this.logs) {
      if (log.length === 0 || log[log.length - 1]! <= cutoff) this.logs.delete(subject);
    }
  }

  clear(): void {
    this.logs.clear();
  }
}
