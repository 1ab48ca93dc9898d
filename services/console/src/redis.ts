import { Redis } from 'ioredis';
import type { Logger } from '@preflight/log';

/**
 * The console's Redis: sessions, sign-in limits and SSO state. Without an offline queue and with
 * short timeouts a command fails at once while Redis is away, and the page says so (503)
 * instead of hanging; ioredis keeps reconnecting behind.
 */
export function createRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    commandTimeout: 1_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    autoResendUnfulfilledCommands: false,
    // rate-limiter-flexible and the session store issue a few commands per request: one write.
    enableAutoPipelining: true,
  });
  redis.on('error', (err: Error) => logger.debug({ err: err.message }, 'redis connection error'));
  return redis;
}

/** Resolves once connected or after `ms` (a console starts without Redis, and reports it). */
export function redisReady(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    redis.on('ready', onReady);
  });
}

/** ioredis's ways of saying Redis is away (no offline queue, closed, timed out). */
const OUTAGE_MESSAGES = ["Stream isn't writeable", 'Connection is closed', 'Command timed out', 'Reached the max retries per request limit'];

export function isRedisOutage(err: unknown): boolean {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' && OUTAGE_MESSAGES.some((m) => message.includes(m));
}
