/**
 * Sliding-log admission, atomic in Redis. Kept as strings in a .ts module so bundles carry them.
 *
 * Redis TIME is the one clock every replica shares, so replicas with skewed clocks still agree
 * on the window. An entry admitted at s counts while now < s + window.
 */

/**
 * The log itself, on the sorted set `LOG` (admission times, microseconds).
 * ARGV[1] limit, ARGV[2] window in microseconds, ARGV[3] a unique member for this admission.
 * Leaves {admitted 0|1, remaining, micros until the oldest entry leaves, now in seconds, and
 * its microseconds part} in `decision` (the caller maps its own clock onto Redis's with the last two).
 */
const slidingLog = (log: string) => `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', ${log}, '-inf', now - window)
local count = redis.call('ZCARD', ${log})
local admitted = 0
if count < limit then
  redis.call('ZADD', ${log}, now, ARGV[3])
  redis.call('PEXPIRE', ${log}, math.ceil(window / 1000))
  count = count + 1
  admitted = 1
end
local oldest = redis.call('ZRANGE', ${log}, 0, 0, 'WITHSCORES')
local reset = window
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
local decision = {admitted, limit - count, reset, tonumber(t[1]), tonumber(t[2])}
`;

/** KEYS[1] the subject's log. Returns the decision. */
export const SLIDING_LOG_SCRIPT = `${slidingLog('KEYS[1]')}
return decision
`;

/**
 * Authentication and admission in one round trip, for a key this replica has seen before:
 * KEYS[1] the key's cache entry (auth/key-cache.ts), KEYS[2] its log; ARGV as above.
 * Returns {-1} when the entry is missing (expired, or never filled: Postgres decides, and the
 * caller runs the log on its own), {-2} for a revocation tombstone (nothing recorded, as for
 * any refused key), else the decision followed by the entry as cached.
 * A tombstone is the exact JSON `{"revoked":true}`; a live entry carries `"revoked":false`, and
 * JSON escapes every quote inside its strings, so the marker cannot occur in one by accident.
 */
export const CACHED_KEY_ADMISSION_SCRIPT = `
local entry = redis.call('GET', KEYS[1])
if not entry then return {-1} end
if string.find(entry, '"revoked":true', 1, true) then return {-2} end
${slidingLog('KEYS[2]')}
decision[6] = entry
return decision
`;
