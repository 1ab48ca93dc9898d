import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RateLimitDecision, RateLimitPolicy, RateLimiter } from './policy.ts';
import { CACHED_KEY_ADMISSION_SCRIPT, SLIDING_LOG_SCRIPT } from './sliding-log.lua.ts';

type ScriptResult = [number, number, number, number];
type AdmissionResult = [-1] | [-2] | [number, number, number, number, string];
type Script<T> = (...args: unknown[]) => Promise<T>;

/** What the combined script found for a key seen before (see CACHED_KEY_ADMISSION_SCRIPT). */
export type CachedAdmission = { kind: 'miss' } | { kind: 'revoked' } | { kind: 'decided'; decision: RateLimitDecision; entry: string };

/**
 * The limit every replica shares. A sliding log, because it is the only simple scheme that
 * guarantees no interval of `window` seconds ever admits more than `limit`: a fixed window
 * admits up to 2×limit across a boundary (limit at 0:59, limit again at 1:00), and a token
 * bucket refilling at limit/window admits its full burst plus the refill inside one window.
 * Rejected requests are not recorded, so a client hammering while limited does not push its
 * own recovery further out.
 */
export class RedisRateLimiter implements RateLimiter {
  // Members only need to be unique per log: a per-process random prefix and a counter are, and
  // cost less than a UUID per request.
  private readonly memberPrefix = randomBytes(8).toString('base64url');
  private sequence = 0;
  private readonly slidingLog: Script<ScriptResult>;
  private readonly cachedKeyAdmission: Script<AdmissionResult>;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly policy: RateLimitPolicy,
  ) {
    redis.defineCommand('preflightSlidingLog', { numberOfKeys: 1, lua: SLIDING_LOG_SCRIPT });
    redis.defineCommand('preflightCachedKeyAdmission', { numberOfKeys: 2, lua: CACHED_KEY_ADMISSION_SCRIPT });
    const commands = redis as unknown as Record<string, Script<never>>;
    this.slidingLog = commands.preflightSlidingLog!.bind(redis);
    this.cachedKeyAdmission = commands.preflightCachedKeyAdmission!.bind(redis);
  }

  private logKey(subject: string): string {
    return `${this.keyPrefix}rl:${subject}`;
  }

  private member(): string {
    this.sequence = (this.sequence + 1) % Number.MAX_SAFE_INTEGER;
    return `${this.memberPrefix}:${this.sequence}`;
  }

  private decision([admitted, remaining, resetMicros, nowSeconds]: ScriptResult): RateLimitDecision {
    return {
      admitted: admitted === 1,
      remaining: Math.max(0, remaining),
      resetSeconds: Math.max(0, Math.ceil(resetMicros / 1_000_000)),
      nowEpochSeconds: nowSeconds,
    };
  }

  async check(subject: string): Promise<RateLimitDecision> {
    return this.decision(await this.slidingLog(this.logKey(subject), this.policy.limit, this.policy.windowSeconds * 1_000_000, this.member()));
  }

  /**
   * Reads the key's cache entry and, when it is live, runs the key's log, in one atomic round
   * trip. Rejects when Redis cannot be reached (the caller falls back as for any Redis failure).
   */
  async checkCachedKey(cacheEntryKey: string, subject: string): Promise<CachedAdmission> {
    const result = await this.cachedKeyAdmission(cacheEntryKey, this.logKey(subject), this.policy.limit, this.policy.windowSeconds * 1_000_000, this.member());
    if (result.length === 1) return result[0] === -1 ? { kind: 'miss' } : { kind: 'revoked' };
    const [admitted, remaining, reset, now, entry] = result;
    return { kind: 'decided', decision: this.decision([admitted, remaining, reset, now]), entry };
  }
}
