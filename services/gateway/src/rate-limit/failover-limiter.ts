import type { Logger } from '@preflight/log';
import type { Gauge } from 'prom-client';
import { MemoryRateLimiter } from './memory-limiter.ts';
import type { RateLimitDecision, RateLimitPolicy, RateLimiter } from './policy.ts';

/**
 * Shared limit through Redis; while Redis fails, a per-replica in-process log with the same
 * policy, so the API stays up and still limited. Every request tries Redis first (a failed
 * command costs nothing with the offline queue off), which is also how recovery is noticed.
 * One warning per outage, and a gauge for alerting.
 */
export class FailoverRateLimiter implements RateLimiter {
  private degraded = false;
  private readonly fallback: MemoryRateLimiter;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly shared: RateLimiter,
    policy: RateLimitPolicy,
    private readonly logger: Logger,
    private readonly gauge: Gauge,
  ) {
    this.fallback = new MemoryRateLimiter(policy);
    this.sweeper = setInterval(() => this.fallback.sweep(), policy.windowSeconds * 1000);
    this.sweeper.unref();
    gauge.set(0);
  }

  async check(subject: string): Promise<RateLimitDecision> {
    try {
      const decision = await this.shared.check(subject);
      if (this.degraded) {
        this.degraded = false;
        this.gauge.set(0);
        this.fallback.clear();
        this.logger.info('Redis is reachable again; rate limits are shared across replicas once more');
      }
      return decision;
    } catch (err) {
      if (!this.degraded) {
        this.degraded = true;
        this.gauge.set(1);
        this.logger.warn({ err: (err as Error).message }, 'Redis is unreachable; rate limiting per replica in memory until it is back');
      }
      return this.fallback.check(subject);
    }
  }

  get isDegraded(): boolean {
    return this.degraded;
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
