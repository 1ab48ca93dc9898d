import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@preflight/testing';
import type { RunningGateway } from '../src/app.ts';
import { adminClient, bearer, call, cleanUp, expectProblem, isolation, metricValue, startTestGateway, type Call } from './harness.ts';

// A small policy so the boundary is reachable quickly: 5 requests per 3 seconds.
const LIMITS = { RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_SECONDS: '3' };
const iso = isolation();
let a: RunningGateway;
let b: RunningGateway;
/** Same schema, but Redis is a closed port. */
let noRedis: RunningGateway;
let admin: ReturnType<typeof adminClient>;
let orgId: string;

beforeAll(async () => {
  a = await startTestGateway(iso, LIMITS);
  b = await startTestGateway(iso, LIMITS);
  noRedis = await startTestGateway(iso, { ...LIMITS, REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
  admin = adminClient(a.url, iso.adminToken);
  orgId = (await admin.createOrg('Limited')).id;
});
afterAll(async () => {
  await Promise.all([a?.shutdown(), b?.shutdown(), noRedis?.shutdown()]);
  await cleanUp(iso);
});

const me = (base: string, key: string) => call(base, 'GET', '/api/v1/me', { headers: bearer(key) });
const wait = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

function expectRateLimited(res: Call): number {
  const body = expectProblem(res, 429, 'Too many requests.');
  const retryAfter = res.headers.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  const seconds = Number(retryAfter);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(3);
  expect(body.detail).toBe(`Rate limit of 5 requests per 3 seconds exceeded. Retry after ${seconds} second${seconds === 1 ? '' : 's'}.`);
  expect(res.headers.get('ratelimit')).toBe(`"default";r=0;t=${seconds}`);
  expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
  return seconds;
}

describe('per-key rate limit, shared through Redis', () => {
  it('admits exactly the limit with headers on every response, then 429 until Retry-After, when it admits again', async () => {
    const { key } = await admin.createKey(orgId, ['read']);
    for (let i = 1; i <= 5; i += 1) {
      const before = Math.floor(Date.now() / 1000);
      const res = await me(a.url, key);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe('"default";q=5;w=3');
      expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^"default";r=${5 - i};t=[1-3]$`));
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(5 - i));
      const reset = Number(res.headers.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThanOrEqual(before);
      expect(reset).toBeLessThanOrEqual(before + 5);
    }
    const retryAfter = expectRateLimited(await me(a.url, key));
    // Still limited, whatever the route: the limit is checked before the scope.
    expectRateLimited(await call(a.url, 'POST', '/api/v1/campaigns/3b8e4f0a-1c2d-4e5f-8a9b-0c1d2e3f4a5b/issues', { headers: bearer(key), body: {} }));
    expect(await metricValue(a.url, 'gateway_rate_limited_total')).toBeGreaterThanOrEqual(2);

    // Retry-After is a promise: the request made then is admitted (rejections were not recorded).
    await wait(retryAfter);
    expect((await me(a.url, key)).status).toBe(200);
  });

  it('is one limit across replicas', async () => {
    const { key } = await admin.createKey(orgId, ['read']);
    for (const base of [a.url, a.url, b.url, a.url]) expect((await me(base, key)).status).toBe(200);
    const fifth = await me(b.url, key);
    expect(fifth.status).toBe(200);
    expect(fifth.headers.get('x-ratelimit-remaining')).toBe('0');
    expectRateLimited(await me(a.url, key));
    expectRateLimited(await me(b.url, key));
  });

  it('admits exactly the limit under concurrent requests to both replicas', async () => {
    const { key } = await admin.createKey(orgId, ['read']);
    const results = await Promise.all(Array.from({ length: 14 }, (_, i) => me(i % 2 ? a.url : b.url, key)));
    expect(results.map((r) => r.status).sort()).toEqual([...Array(5).fill(200), ...Array(9).fill(429)]);
  });
});

describe('while Redis is unreachable', () => {
  it('stays up: authenticates from Postgres and limits per replica in memory, reporting degraded', async () => {
    const { key, id } = await admin.createKey(orgId, ['read']);
    for (let i = 1; i <= 5; i += 1) {
      const res = await me(noRedis.url, key);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(5 - i));
      expect(res.headers.get('ratelimit-policy')).toBe('"default";q=5;w=3');
    }
    const retryAfter = expectRateLimited(await me(noRedis.url, key));
    expect(await metricValue(noRedis.url, 'gateway_rate_limiter_degraded')).toBe(1);
    expect(await metricValue(a.url, 'gateway_rate_limiter_degraded')).toBe(0);
    expect((await fetch(`${noRedis.url}/readyz`)).status).toBe(200);

    await wait(retryAfter);
    expect((await me(noRedis.url, key)).status).toBe(200);

    // Revocation still takes effect: the replica without Redis reads Postgres every time.
    await adminClient(noRedis.url, iso.adminToken).revokeKey(orgId, id);
    expectProblem(await me(noRedis.url, key), 401);
    expectProblem(await me(a.url, key), 401);
  });
});
