import { describe, expect, inject, it } from 'vitest';
import { call, freshTenant } from '../support/client.ts';
import { expectProblem } from './problems.ts';

const sys = inject('system');

describe('rate limit: 600 requests per minute per key', () => {
  it('admits exactly 600 calls, then answers 429 with Retry-After and the limit headers', async () => {
    const t = await freshTenant(sys, { a: ['read'], b: ['read'] });
    const key = t.keys.a!.key;
    const statuses: number[] = [];
    let remaining: number[] = [];
    for (let batch = 0; batch < 30; batch++) {
      const results = await Promise.all(Array.from({ length: 20 }, () => call(sys, 'GET', '/api/v1/me', { apiKey: key })));
      statuses.push(...results.map((r) => r.status));
      remaining.push(...results.map((r) => Number(r.headers.get('x-ratelimit-remaining'))));
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(600);
    remaining = remaining.sort((a, b) => a - b);
    expect(remaining[0]).toBe(0);
    expect(remaining.at(-1)).toBe(599);

    const limited = await call(sys, 'GET', '/api/v1/campaigns', { apiKey: key });
    const problem = expectProblem(limited, 429);
    expect(problem.title).toBe('Too many requests.');
    const retryAfter = limited.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(problem.detail).toContain(`${retryAfter} second`);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('600');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('ratelimit-policy')).toMatch(/q=600;\s*w=60/);
    expect(limited.headers.get('ratelimit')).toMatch(/r=0/);

    // The limit is per key: the organisation's other key is unaffected.
    const other = await call(sys, 'GET', '/api/v1/me', { apiKey: t.keys.b!.key });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('599');
    expect(Number(other.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
  });
});
