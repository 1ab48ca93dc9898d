import { Redis } from 'ioredis';
import type { Logger } from '@preflight/log';

export { Redis };

export interface RedisOptions {
  /** How long one command may take before it fails (the caller falls back or answers 503). */
  commandTimeoutMs: number;
}

/**
 * Redis as the services use it (the gateway's limits and key cache, the console's sessions):
 * never something a request waits on. With no offline queue and short timeouts every command
 * fails at once while Redis is away, and the caller falls back or says so; ioredis keeps
 * reconnecting behind.
 */
export function createRedis(url: string, logger: Logger, options: RedisOptions): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    commandTimeout: options.commandTimeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    // The callers handle a lost connection; a queued command would only add latency.
    autoResendUnfulfilledCommands: false,
    // Commands issued in the same event-loop tick leave in one write: a socket write costs about
    // as much as the rest of a request's Redis work.
    enableAutoPipelining: true,
  });
  // Without a listener ioredis prints every reconnect failure; the callers report outages once.
  redis.on('error', (err: Error) => logger.debug({ err: err.message }, 'redis connection error'));
  return redis;
}

/**
 * Resolves true once connected, false at the first connection error or after `ms`: a service
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

/** ioredis's ways of saying Redis is away (no offline queue, closed, timed out). */
const OUTAGE_MESSAGES = ["Stream isn't writeable", 'Connection is closed', 'Command timed out', 'Reached the max retries per request limit'];

export function isRedisOutage(err: unknown): boolean {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' && OUTAGE_MESSAGES.some((m) => message.includes(m));
}
