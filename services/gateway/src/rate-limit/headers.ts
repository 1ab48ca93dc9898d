import type { RateLimitDecision, RateLimitPolicy } from './policy.ts';

/**
 * Rate-limit response headers, in two dialects:
 * - draft-ietf-httpapi-ratelimit-headers (-08 onwards): `RateLimit-Policy` names the policy
 *   with its quota `q` and window `w`; `RateLimit` gives the remaining quota `r` and `t`, the
 *   seconds until quota frees up. Both are structured-field lists of a quoted policy name.
 * - GitHub's `X-RateLimit-Limit/Remaining/Reset`, `Reset` in UTC epoch seconds, which many
 *   clients already understand.
 * In a sliding log quota frees one admission at a time, so `t`/`Reset` is when the oldest
 * admission in the window expires.
 */
export const POLICY_NAME = 'default';

export function rateLimitHeaders(policy: RateLimitPolicy, decision: RateLimitDecision): Record<string, string> {
  const name = policy.name ?? POLICY_NAME;
  return {
    'RateLimit-Policy': `"${name}";q=${policy.limit};w=${policy.windowSeconds}`,
    RateLimit: `"${name}";r=${decision.remaining};t=${decision.resetSeconds}`,
    'X-RateLimit-Limit': String(policy.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.nowEpochSeconds + decision.resetSeconds),
  };
}

export function rateLimitedDetail(policy: RateLimitPolicy, retryAfter: number): string {
  const seconds = (n: number) => `${n} second${n === 1 ? '' : 's'}`;
  return `Rate limit of ${policy.limit} requests per ${seconds(policy.windowSeconds)} exceeded. Retry after ${seconds(retryAfter)}.`;
}
