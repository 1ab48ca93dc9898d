import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '@preflight/testing';
import { asOperator, newOrg, startHarness, type Browser, type Harness } from './harness.ts';

let h: Harness;
let redis: Redis;

beforeAll(async () => {
  h = await startHarness({ CONSOLE_SESSION_IDLE_SECONDS: '600', CONSOLE_SESSION_ABSOLUTE_SECONDS: '3600' });
  redis = new Redis(TEST_REDIS_URL);
});
afterAll(async () => {
  await redis?.quit();
  await h?.close();
});

/** The Redis key of a browser's session: only the SHA-256 of the cookie's id is stored. */
const sessionKey = (browser: Browser) => `${h.redisPrefix}console:session:${createHash('sha256').update(browser.cookies.get('__Host-preflight_session')!).digest('hex')}`;

async function signedIn(): Promise<Browser> {
  const orgId = await newOrg(h);
  const user = await h.addUser({ orgId, role: 'Member' });
  const browser = h.browser();
  await browser.signIn(user.email, user.password);
  return browser;
}

describe('sessions in Redis', () => {
  it('are stored under the hash of their id, with the idle lifetime as TTL, restarted by each request', async () => {
    const browser = await signedIn();
    const key = sessionKey(browser);
    const stored = JSON.parse((await redis.get(key))!);
    expect(Object.keys(stored).sort()).toEqual(['createdAt', 'csrf', 'email', 'orgId', 'orgName', 'role', 'userId']);
    expect(await redis.exists(`${h.redisPrefix}console:session:${browser.cookies.get('__Host-preflight_session')}`)).toBe(0);
    await redis.expire(key, 100);
    expect((await browser.get('/console/orgs')).status).toBe(200);
    expect(await redis.ttl(key)).toBeGreaterThan(590);
  });

  it('end at their absolute lifetime however much they are used', async () => {
    const browser = await signedIn();
    const key = sessionKey(browser);
    const stored = JSON.parse((await redis.get(key))!);
    await redis.set(key, JSON.stringify({ ...stored, createdAt: Date.now() - 3600_000 - 1000 }), 'EX', 600);
    const page = await browser.get('/console/orgs');
    expect(page.status).toBe(303);
    expect(page.location).toContain('/console/sign-in');
    expect(await redis.exists(key)).toBe(0);
  });
});

describe('invitations accepted twice at once', () => {
  it('admit one acceptance; the other is told the link was used', async () => {
    const orgId = await newOrg(h);
    const created = await h.call('POST', `/admin/v1/organizations/${orgId}/invitations`, { as: asOperator, body: { email: 'twice@example.com', role: 'Member' } });
    const link = new URL(created.body.url).pathname;
    const [a, b] = [h.browser(), h.browser()];
    await Promise.all([a.get(link), b.get(link)]);
    const replies = await Promise.all([a, b].map((browser, i) => browser.post(link, { name: `Twice ${i}`, password: 'a long enough passphrase' })));
    const [won, lost] = replies.map((r) => r.status).sort((x, y) => x - y);
    expect(won).toBe(303);
    // 410 when the loser found the invitation used, 409 when it met the new account first.
    expect([409, 410]).toContain(lost);
    expect(await h.db.selectFrom('users').select('name').where('email', '=', 'twice@example.com').execute()).toHaveLength(1);
    expect(await h.db.selectFrom('memberships').select('user_id').where('org_id', '=', orgId).execute()).toHaveLength(1);
  });
});
