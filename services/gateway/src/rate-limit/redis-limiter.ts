import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RateLimitDecision, RateLimitPolicy, RateLimiter } from './policy.ts';
import { SLIDING_LOG_SCRIPT } from './sliding-log.lua.ts';

type ScriptResult = [number, number, number, number];

/**
 * The limit every replica shares. A sliding log, because it is the only simple scheme that
 * guarantees no interval of `window` seconds ever admits more than `limit`: a fixed window
 * admits up to 2×limit across a boundary (limit at 0:59, limit again at 1:00), and a token
 * bucket refilling at limit/window admits its full burst plus the refill inside one window.
 * Rejected requests are not recorded, so a client hammering while limited does not push its
 * own recovery further out.
 */
export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly policy: RateLimitPolicy,
  ) {
    redis.defineCommand('preflightSlidingLog', { numberOfKeys: 1, lua: SLIDING_LOG_SCRIPT });
  }

  async check(subject: string): Promise<RateLimitDecision> {
    const run = (this.redis as unknown as Record<string, (...args: unknown[]) => Promise<ScriptResult>>).preflightSlidingLog!;
    const [admitted, remaining, resetMicros, nowSeconds] = await run.call(
      this.redis,
      `${this.keyPrefix}rl:${subject}`,
      this.policy.limit,
      this.policy.windowSeconds * 1_000_000,
      randomUUID(),
    );
    return {
      admitted: admitted === 1,
      remaining: Math.max(0, remaining),
      resetSeconds: Math.max(0, Math.ceil(resetMicros / 1_000_000)),
      nowEpochSeconds: nowSeconds,
    };
  }
}
