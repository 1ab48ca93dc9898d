/**
 * Sliding-log admission, atomic in Redis. Kept as a string in a .ts module so bundles carry it.
 *
 * KEYS[1] the subject's log (a sorted set of admission times, microseconds)
 * ARGV[1] limit, ARGV[2] window in microseconds, ARGV[3] a unique member for this admission
 * Returns {admitted 0|1, remaining, micros until the oldest entry leaves, now in seconds}.
 *
 * Redis TIME is the one clock every replica shares, so replicas with skewed clocks still agree
 * on the window. An entry admitted at s counts while now < s + window.
 */
export const SLIDING_LOG_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local admitted = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
  count = count + 1
  admitted = 1
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = window
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return {admitted, limit - count, reset, tonumber(t[1])}
`;
