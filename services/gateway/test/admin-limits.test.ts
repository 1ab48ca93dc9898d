import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../src/app.ts';
import { call, cleanUp, expectProblem, isolation, metricValue, startTestGateway } from './harness.ts';

// Issue 22, finding 9: the admin API had no rate limit and no lockout (docs/reliability.md).
const iso = isolation();
/** 5 admin calls per 60 s per operator token. */
let limited: RunningGateway;
/** 3 wrong tokens per 60 s per address; addresses from X-Forwarded-For (TRUST_PROXY). */
let guarded: RunningGateway;

beforeAll(async () => {
  limited = await startTestGateway(iso, { ADMIN_RATE_LIMIT_MAX: '5', ADMIN_RATE_LIMIT_WINDOW_SECONDS: '60' });
  guarded = await startTestGateway(iso, { ADMIN_AUTH_FAILURES_MAX: '3', ADMIN_AUTH_FAILURE_WINDOW_SECONDS: '60', TRUST_PROXY: 'loopback' });
});
afterAll(async () => {
  await Promise.all([limited?.shutdown(), guarded?.shutdown()]);
  await cleanUp(iso);
});

const adminCall = (base: string, token: string, headers: Record<string, string> = {}) =>
  call(base, 'GET', '/admin/v1/organizations', { headers: { authorization: `Bearer ${token}`, ...headers } });

describe('admin rate limit per operator token', () => {
  it('admits the limit with the rate-limit headers, then 429 with Retry-After like the public API', async () => {
    for (let i = 1; i <= 5; i++) {
      const res = await adminCall(limited.url, iso.adminToken);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe('"admin";q=5;w=60');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(5 - i));
    }
    const refused = await call(limited.url, 'POST', '/admin/v1/organizations', { headers: { authorization: `Bearer ${iso.adminToken}` }, body: { name: 'x' } });
    const body = expectProblem(refused, 429, 'Too many requests.');
    expect(body.detail).toMatch(/^Rate limit of 5 requests per 60 seconds exceeded\. Retry after \d+ seconds?\.$/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    // A wrong token is still a 401, not counted against the operator's quota.
    expectProblem(await adminCall(limited.url, 'wrong-token-wrong-token'), 401);
  });
});

describe('lockout of an address sending wrong operator tokens', () => {
  it('refuses every admin call from the address after 3 wrong tokens, the right one included, and no other address', async () => {
    const from = (address: string) => ({ 'x-forwarded-for': address });
    for (let i = 0; i < 3; i++) expectProblem(await adminCall(guarded.url, `wrong-token-${i}-wrong-token`, from('203.0.113.7')), 401);
    const locked = await adminCall(guarded.url, 'wrong-token-again-wrong', from('203.0.113.7'));
    const body = expectProblem(locked, 429, 'Too many requests.');
    expect(body.detail).toMatch(/wrong operator tokens from this address/);
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(59);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The right token gets the same answer: a guesser cannot tell a right guess while locked out.
    expectProblem(await adminCall(guarded.url, iso.adminToken, from('203.0.113.7')), 429);
    expect((await adminCall(guarded.url, iso.adminToken, from('198.51.100.2'))).status).toBe(200);
    // A missing token is not a guess.
    for (let i = 0; i < 4; i++) expectProblem(await call(guarded.url, 'GET', '/admin/v1/organizations', { headers: from('198.51.100.3') }), 401);
    expect((await adminCall(guarded.url, iso.adminToken, from('198.51.100.3'))).status).toBe(200);
    expect(await metricValue(guarded.url, 'gateway_admin_lockouts_total')).toBe(2);
  });
});
