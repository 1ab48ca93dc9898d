/** One rate-limit policy: at most `limit` admissions in any `windowSeconds`-long interval. */
export interface RateLimitPolicy {
  limit: number;
  windowSeconds: number;
  /** The policy's name in the RateLimit headers; `default` (the public API's) when unset. */
  name?: string;
}

/** The outcome of one check, in whole seconds as clients see it. */
export interface RateLimitDecision {
  admitted: boolean;
  /** Admissions left in the window after this one. */
  remaining: number;
  /**
   * Seconds (ceil) until the oldest admission in the window leaves it and a unit of quota
   * frees up. On a rejection this is exactly when a retry is admitted (Retry-After).
   */
  resetSeconds: number;
  /** The clock the decision was made on, UTC epoch seconds (Redis TIME when shared). */
  nowEpochSeconds: number;
}

export interface RateLimiter {
  check(subject: string): Promise<RateLimitDecision>;
}
