import { Redis } from 'ioredis';
import { Gauge, Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '@preflight/log';
import { TEST_REDIS_URL, isolatedName } from '@preflight/testing';
import { FailoverRateLimiter } from '../src/rate-limit/failover-limiter.ts';
import { RedisRateLimiter, type SharedDecision } from '../src/rate-limit/redis-limiter.ts';

const policy = { limit: 5, windowSeconds: 30 };
const prefix = `${isolatedName('gw-failover')}:`;
const redis = new Redis(TEST_REDIS_URL);
const logger = createLogger('failover-limiter-test', { level: 'silent' });

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

/** The shared log on real Redis, whose checks after the first wait until `release` is called. */
class HeldSharedLog extends RedisRateLimiter {
  private calls = 0;
  release: () => void = () => {};
  private readonly gate = new Promise<void>((resolve) => {
    this.release = resolve;
  });
  override async check(subject: string, member?: string): Promise<SharedDecision> {
    this.calls += 1;
    if (this.calls > 1) await this.gate;
    return super.check(subject, member);
  }
}

function limiter(shared: RedisRateLimiter): FailoverRateLimiter {
  const gauge = new Gauge({ name: 'degraded', help: 'degraded', registers: [new Registry()] });
  return new FailoverRateLimiter(shared, policy, logger, gauge);
}

describe('the failover limiter', () => {
  it('admits exactly the limit when the first answer arrives while later reservations still wait for Redis', async () => {
    const shared = new HeldSharedLog(redis, prefix, policy);
    const replica = limiter(shared);
    const subject = 'key-held';
    // Five reservations at once; only the first reaches Redis until it has been answered and reconciled.
    const first = replica.check(subject);
    const rest = Array.from({ length: 4 }, () => replica.check(subject));
    expect((await first).admitted).toBe(true);
    shared.release();
    const decisions = [await first, ...(await Promise.all(rest))];
    expect(decisions.map((d) => d.admitted)).toEqual([true, true, true, true, true]);
    expect(await redis.zcard(`${prefix}rl:${subject}`)).toBe(5);
    expect((await replica.check(subject)).admitted).toBe(false);
    replica.close();
  });

  it('is one limit for two replicas racing on one key', async () => {
    const replicas = [limiter(new RedisRateLimiter(redis, prefix, policy)), limiter(new RedisRateLimiter(redis, prefix, policy))];
    const decisions = await Promise.all(Array.from({ length: 14 }, (_, i) => replicas[i % 2]!.check('key-raced')));
    expect(decisions.filter((d) => d.admitted)).toHaveLength(5);
    for (const r of replicas) r.close();
  });
});
