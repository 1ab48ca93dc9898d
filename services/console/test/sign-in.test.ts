import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newOrg, startHarness, type Harness } from './harness.ts';

let h: Harness;
let orgId: string;

beforeAll(async () => {
  h = await startHarness({ CONSOLE_SIGN_IN_MAX_PER_ACCOUNT: '3', CONSOLE_SIGN_IN_MAX_PER_ADDRESS: '1000' });
  orgId = await newOrg(h, 'Acme Testing');
});
afterAll(async () => h?.close());

describe('sign-in', () => {
  it('shows the sign-in form with a CSRF token and the security headers', async () => {
    const page = await h.browser().get('/console/sign-in');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text.startsWith('<!doctype html><html lang="en">')).toBe(true);
    expect(page.text).toContain('<main id="main"');
    expect(page.text).toMatch(/<label for="field-email">E-mail<\/label>/);
    expect(page.text).toMatch(/name="_csrf" value="[A-Za-z0-9_-]{40,}"/);
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    );
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    expect(page.headers.get('cache-control')).toBe('no-store');
  });

  it('signs a member in with a Secure, HttpOnly, SameSite=Lax host-only cookie and shows their organisation', async () => {
    const user = await h.addUser({ orgId, role: 'Admin' });
    const browser = h.browser();
    const signIn = await browser.signIn(user.email, user.password);
    expect(signIn.status).toBe(303);
    expect(signIn.location).toBe('/console/');
    const cookie = signIn.headers.getSetCookie().find((c) => c.startsWith('__Host-preflight_session='))!;
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/Domain=/i);

    const home = await browser.get('/console/');
    expect(home.status).toBe(303);
    expect(home.location).toBe('/console/campaigns');
    // The organisation chooser is a page of the shell: the header names the organisation and the user.
    const orgs = await browser.get('/console/orgs');
    expect(orgs.status).toBe(200);
    expect(orgs.text).toContain('Acme Testing');
    expect(orgs.text).toContain(user.email);
    expect(orgs.text).toContain('href="/console/settings/members"');
    expect(orgs.text).toMatch(/hx-headers="\{&quot;X-CSRF-Token&quot;:&quot;[A-Za-z0-9_-]+&quot;\}"/);
    const [row] = await h.db.selectFrom('users').select('last_sign_in_at').where('id', '=', user.id).execute();
    expect(row!.last_sign_in_at).toBeInstanceOf(Date);
  });

  it('keeps the Settings navigation from Members', async () => {
    const user = await h.addUser({ orgId, role: 'Member' });
    const browser = h.browser();
    await browser.signIn(user.email, user.password);
    const orgs = await browser.get('/console/orgs');
    expect(orgs.text).not.toContain('/console/settings/');
  });

  it('refuses a wrong password and an unknown e-mail alike, and counts them', async () => {
    const user = await h.addUser({ orgId, role: 'Member' });
    const failures = await h.metric('console_sign_ins_total', { outcome: 'failure' });
    const wrong = await h.browser().signIn(user.email, 'not the password at all');
    const unknown = await h.browser().signIn('nobody@example.com', 'not the password at all');
    for (const reply of [wrong, unknown]) {
      expect(reply.status).toBe(401);
      expect(reply.text).toContain('That e-mail address and password do not match an account.');
      expect(reply.headers.getSetCookie().some((c) => c.startsWith('__Host-preflight_session='))).toBe(false);
    }
    expect(await h.metric('console_sign_ins_total', { outcome: 'failure' })).toBe(failures + 2);
  });

  it('sends a visitor without a session to sign-in, and back after', async () => {
    const browser = h.browser();
    const page = await browser.get('/console/orgs');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/console/sign-in?next=%2Fconsole%2Forgs');
    const htmx = await browser.get('/console/orgs', { 'hx-request': 'true' });
    expect(htmx.status).toBe(401);
    expect(htmx.headers.get('hx-redirect')).toBe('/console/sign-in?next=%2Fconsole%2Forgs');

    const user = await h.addUser({ orgId, role: 'Member' });
    await browser.get('/console/sign-in?next=%2Fconsole%2Forgs');
    const signIn = await browser.post('/console/sign-in', { email: user.email, password: user.password, next: '/console/orgs' });
    expect(signIn.location).toBe('/console/orgs');
    // Never off the console: a foreign `next` is dropped.
    const other = h.browser();
    await other.get('/console/sign-in');
    const away = await other.post('/console/sign-in', { email: user.email, password: user.password, next: '//evil.example/' });
    expect(away.location).toBe('/console/');
  });

  it('gives a new session id at every sign-in and ends it at sign-out', async () => {
    const user = await h.addUser({ orgId, role: 'Member' });
    const browser = h.browser();
    await browser.signIn(user.email, user.password);
    const first = browser.cookies.get('__Host-preflight_session');
    await browser.get('/console/sign-in');
    const again = h.browser();
    await again.signIn(user.email, user.password);
    expect(again.cookies.get('__Host-preflight_session')).not.toBe(first);

    await browser.get('/console/orgs');
    const out = await browser.post('/console/sign-out', {});
    expect(out.status).toBe(303);
    expect(out.location).toBe('/console/sign-in');
    expect(browser.cookies.has('__Host-preflight_session')).toBe(false);
    // The old cookie, replayed, signs nobody in.
    const replay = h.browser();
    replay.cookies.set('__Host-preflight_session', first!);
    expect((await replay.get('/console/orgs')).status).toBe(303);
  });

  it('limits failed sign-ins per account and address with 429 and Retry-After, even for the right password', async () => {
    const user = await h.addUser({ orgId, role: 'Member' });
    for (let i = 0; i < 3; i++) expect((await h.browser().signIn(user.email, 'wrong password number')).status).toBe(401);
    const limited = await h.browser().signIn(user.email, user.password);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.text).toContain('Too many attempts');
    expect(await h.metric('console_sign_ins_total', { outcome: 'rate_limited' })).toBeGreaterThan(0);
  });

  it('answers a user of no organisation with a clear page', async () => {
    const user = await h.addUser({ orgId, role: 'Member' });
    await h.db.deleteFrom('memberships').where('user_id', '=', user.id).execute();
    const reply = await h.browser().signIn(user.email, user.password);
    expect(reply.status).toBe(403);
    expect(reply.text).toContain('You are not a member of any organisation');
  });
});

describe('organisations', () => {
  it('lets a member of several organisations choose one, re-checking the membership', async () => {
    const second = await newOrg(h, 'Beta Corp');
    const third = await newOrg(h, 'Gamma Ltd');
    const user = await h.addUser({ orgId, role: 'Member' });
    await h.db.insertInto('memberships').values({ user_id: user.id, org_id: second, role: 'Owner' }).execute();
    const browser = h.browser();
    const signIn = await browser.signIn(user.email, user.password);
    expect(signIn.location).toBe('/console/orgs');
    const chooser = await browser.get('/console/orgs');
    expect(chooser.text).toContain('Beta Corp');
    expect(chooser.text).toContain('Acme Testing');

    const before = browser.cookies.get('__Host-preflight_session');
    const switched = await browser.post('/console/orgs', { orgId: second });
    expect(switched.status).toBe(303);
    expect(switched.location).toBe('/console/campaigns');
    expect(browser.cookies.get('__Host-preflight_session')).not.toBe(before);
    const now = await browser.get('/console/orgs');
    expect(now.text).toMatch(/Beta Corp<\/span>/);
    expect(now.text).toContain('href="/console/settings/api-keys"');

    // Not a member of the third: the 404 page, and the session stays as it was.
    const refused = await browser.post('/console/orgs', { orgId: third });
    expect(refused.status).toBe(404);
    expect((await browser.get('/console/orgs')).status).toBe(200);
  });
});

describe('sign-in limits per client address', () => {
  let limited: Harness;
  beforeAll(async () => {
    limited = await startHarness({ CONSOLE_SIGN_IN_MAX_PER_ADDRESS: '3', CONSOLE_SIGN_IN_MAX_PER_ACCOUNT: '100' });
  });
  afterAll(async () => limited?.close());

  it('counts every attempt from the address the gateway forwards, whatever the account, and no other address', async () => {
    const orgId = await newOrg(limited);
    const user = await limited.addUser({ orgId, role: 'Member' });
    // The gateway sets X-Forwarded-For to the client's address; the console believes it from loopback.
    const from = (address: string) => ({ 'x-forwarded-for': address });
    const attempt = async (address: string, email: string, password: string) => {
      const browser = limited.browser();
      await browser.get('/console/sign-in');
      return browser.post('/console/sign-in', { email, password }, { headers: from(address) });
    };
    for (let i = 0; i < 3; i++) expect((await attempt('203.0.113.7', `someone${i}@example.com`, 'guessing a password')).status).toBe(401);
    const refused = await attempt('203.0.113.7', user.email, user.password);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await attempt('198.51.100.9', user.email, user.password)).status).toBe(303);
  });
});
