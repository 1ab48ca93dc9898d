import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@preflight/testing';
import { newOrg, startHarness, type Harness } from './harness.ts';

/** A console whose Redis does not answer (a port nothing listens on). */
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ REDIS_URL: 'redis://127.0.0.1:9' });
});
afterAll(async () => h?.close());

describe('without Redis', () => {
  it('still shows the sign-in page, and answers a sign-in or a session cookie with the 503 page and Retry-After', async () => {
    const orgId = await newOrg(h);
    const user = await h.addUser({ orgId, role: 'Owner' });
    expect((await h.browser().get('/console/sign-in')).status).toBe(200);
    const browser = h.browser();
    const reply = await browser.signIn(user.email, user.password);
    expect(reply.status).toBe(503);
    expect(reply.headers.get('retry-after')).toBeTruthy();
    expect(reply.text).toContain('The console is unavailable just now');

    browser.cookies.set('__Host-preflight_session', 'a-session-id-from-before-the-outage');
    const page = await browser.get('/console/orgs');
    expect(page.status).toBe(503);
    // Shown in /healthz (never gating readiness: no other replica would have Redis either).
    await eventually(async () => expect((await (await fetch(`${h.base}/healthz`)).json()).dependencies.redis).toMatchObject({ status: 'down', gatesReadiness: false }));
  });
});
