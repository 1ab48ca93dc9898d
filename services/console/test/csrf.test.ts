import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newOrg, startHarness, type Browser, type Harness } from './harness.ts';

let h: Harness;
let orgId: string;

beforeAll(async () => {
  h = await startHarness();
  orgId = await newOrg(h);
});
afterAll(async () => h?.close());

/** A signed-in member's browser, and the session cookie it holds. */
async function signedIn(): Promise<{ browser: Browser; cookie: string }> {
  const user = await h.addUser({ orgId, role: 'Owner' });
  const browser = h.browser();
  await browser.signIn(user.email, user.password);
  await browser.get('/console/orgs');
  return { browser, cookie: browser.cookies.get('__Host-preflight_session')! };
}

/** Whether the session still works: sign-out is the change these tests try to force. */
const stillSignedIn = async (browser: Browser) => (await browser.get('/console/orgs')).status === 200;

describe('CSRF protection', () => {
  it('refuses a form without the token, with a wrong one, and from a foreign or missing origin; nothing changes', async () => {
    const { browser } = await signedIn();
    const token = browser.csrf();
    const attempts = [
      { form: { _csrf: '' }, origin: undefined },
      { form: { _csrf: `${token.slice(0, -2)}xx` }, origin: undefined },
      { form: { _csrf: token }, origin: 'https://evil.example' },
      { form: { _csrf: token }, origin: null },
    ];
    for (const { form, origin } of attempts) {
      const reply = await browser.post('/console/sign-out', form, { origin });
      expect(reply.status, JSON.stringify({ form, origin })).toBe(403);
      expect(reply.text).toContain('You do not have access to this');
      expect(await stillSignedIn(browser)).toBe(true);
    }
  });

  it('accepts the token in the X-CSRF-Token header (htmx), and a Referer of the console instead of Origin', async () => {
    const { browser } = await signedIn();
    const byHeader = await browser.post('/console/sign-out', {}, { csrfField: false, headers: { 'x-csrf-token': browser.csrf() } });
    expect(byHeader.status).toBe(303);
    expect(await stillSignedIn(browser)).toBe(false);

    const other = await signedIn();
    const byReferer = await other.browser.post('/console/sign-out', {}, { origin: null, headers: { referer: 'http://127.0.0.1:8080/console/orgs' } });
    expect(byReferer.status).toBe(303);
    expect(await stillSignedIn(other.browser)).toBe(false);
  });

  it('guards the sign-in form with the pre-session token', async () => {
    const user = await h.addUser({ orgId, role: 'Member' });
    const browser = h.browser();
    await browser.get('/console/sign-in');
    const forged = await browser.post('/console/sign-in', { email: user.email, password: user.password, _csrf: 'forged-token-forged-token-forged-token-forged' });
    expect(forged.status).toBe(403);
    expect(browser.cookies.has('__Host-preflight_session')).toBe(false);
  });
});
