import { Redis } from 'ioredis';
import type { Logger } from '@preflight/log';

/**
 * Redis is a helper here, never a dependency a request waits on: with no offline queue and
 * short timeouts, every command fails at once while Redis is away, and callers fall back
 * (Postgres for keys, an in-process log for rate limits). ioredis keeps reconnecting behind.
 */
export function createRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    commandTimeout: 500,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    // Our own fallbacks handle a lost connection; a queued command would only add latency.
    autoResendUnfulfilledCommands: false,
    // Commands issued in the same event-loop tick (concurrent requests' admissions) leave in
    // one write: a socket write costs about as much as the rest of a request's Redis work.
    enableAutoPipelining: true,
  });
  // Without a listener ioredis prints every reconnect failure; the limiter reports outages once.
  redis.on('error', (err: Error) => logger.debug({ err: err.message }, 'redis connection error'));
  return redis;
}

/**
 * Resolves true once connected, false at the first connection error or after `ms`: a gateway
 * starts without Redis rather than wait for it.
 */
export function redisReady(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('error', onError);
      resolve(ok);
    };
    const onReady = () => done(true);
    const onError = () => done(false);
    const timer = setTimeout(() => done(false), ms);
    redis.on('ready', onReady);
    redis.on('error', onError);
  });
}
