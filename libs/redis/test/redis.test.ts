import { describe, expect, it } from 'vitest';
import { createLogger } from '@preflight/log';
import { createRedis, isRedisOutage, redisReady } from '../src/index.ts';

const logger = createLogger('redis-test', { level: 'silent' });

describe('createRedis', () => {
  it('connects to a running Redis and answers', async () => {
    const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', logger, { commandTimeoutMs: 1_000 });
    try {
      expect(await redisReady(redis, 5_000)).toBe(true);
      expect(await redis.ping()).toBe('PONG');
    } finally {
      redis.disconnect();
    }
  });

  it('fails commands at once, as an outage, when Redis is away', async () => {
    // A port nothing listens on: the connection is refused, nothing is queued.
    const redis = createRedis('redis://127.0.0.1:1', logger, { commandTimeoutMs: 500 });
    try {
      expect(await redisReady(redis, 2_000)).toBe(false);
      const err = await redis.get('k').then(() => undefined, (e: unknown) => e);
      expect(isRedisOutage(err)).toBe(true);
      expect(isRedisOutage(new Error('WRONGTYPE Operation against a key'))).toBe(false);
    } finally {
      redis.disconnect();
    }
  });
});
