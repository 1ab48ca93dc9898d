import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RateLimitDecision, RateLimitPolicy, RateLimiter } from './policy.ts';
import { CACHED_KEY_ADMISSION_SCRIPT, SLIDING_LOG_SCRIPT } from './sliding-log.lua.ts';

type ScriptResult = [number, number, number, number, number];
type AdmissionResult = [-1] | [-2] | [number, number, number, number, number, string];
type Script<T> = (...args: unknown[]) => Promise<T>;

/** A decision of the shared log, with what reconciling it with a local log needs. */
export interface SharedDecision extends RateLimitDecision {
  /** Admissions in the shared window after this check. */
  count: number;
  /** Redis's clock at the check, microseconds since the epoch. */
  nowMicros: number;
}

/** What the combined script found for a key seen before (see CACHED_KEY_ADMISSION_SCRIPT). */
export type CachedAdmission = { kind: 'miss' } | { kind: 'revoked' } | { kind: 'decided'; decision: SharedDecision; entry: string };

/** An admission to write back into the shared log: its time on Redis's clock and its member. */
export interface SeedEntry {
  atMicros: number;
  member: string;
}

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
    readonly policy: RateLimitPolicy,
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

  private decision([admitted, remaining, resetMicros, nowSeconds, micros]: ScriptResult): SharedDecision {
    return {
      admitted: admitted === 1,
      remaining: Math.max(0, remaining),
      resetSeconds: Math.max(0, Math.ceil(resetMicros / 1_000_000)),
      nowEpochSeconds: nowSeconds,
      count: this.policy.limit - remaining,
      nowMicros: nowSeconds * 1_000_000 + micros,
    };
  }

  /** Runs the subject's log; `member` names the admission if there is one (unique per log). */
  async check(subject: string, member = this.member()): Promise<SharedDecision> {
    return this.decision(await this.slidingLog(this.logKey(subject), this.policy.limit, this.policy.windowSeconds * 1_000_000, member));
  }

  /**
   * Reads the key's cache entry and, when it is live, runs the key's log, in one atomic round
   * trip. Rejects when Redis cannot be reached (the caller falls back as for any Redis failure).
   */
  async checkCachedKey(cacheEntryKey: string, subject: string, member = this.member()): Promise<CachedAdmission> {
    const result = await this.cachedKeyAdmission(cacheEntryKey, this.logKey(subject), this.policy.limit, this.policy.windowSeconds * 1_000_000, member);
    if (result.length === 1) return result[0] === -1 ? { kind: 'miss' } : { kind: 'revoked' };
    const [admitted, remaining, reset, now, micros, entry] = result;
    return { kind: 'decided', decision: this.decision([admitted, remaining, reset, now, micros]), entry };
  }

  /**
   * Writes admissions the shared log lost (a restarted Redis comes back empty) back into it.
   * NX: an entry still there keeps its own time.
   */
  async seed(subject: string, entries: readonly SeedEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const key = this.logKey(subject);
    await this.redis
      .multi()
      .zadd(key, 'NX', ...entries.flatMap((e) => [e.atMicros, e.member]))
      .pexpire(key, this.policy.windowSeconds * 1000)
      .exec();
  }
}
