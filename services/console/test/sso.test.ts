import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asOperator, newOrg, ORIGIN, startHarness, type Browser, type Harness } from './harness.ts';

/**
 * Single sign-on against a real OpenID provider (oidc-provider, in-process, its development
 * login and consent pages): the console sends the browser there and takes it back.
 */
const accounts = new Map<string, { email: string; email_verified: boolean; name: string }>();
let idp: Server;
let issuer: string;
let h: Harness;

beforeAll(async () => {
  idp = createServer();
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [{ client_id: 'preflight-console', client_secret: 'a-client-secret-for-tests', redirect_uris: [`${ORIGIN}/console/sso/callback`], grant_types: ['authorization_code'], response_types: ['code'] }],
    cookies: { keys: ['cookie-key-for-tests'] },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600 },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: (_ctx: unknown, sub: string) => (accounts.has(sub) ? { accountId: sub, claims: () => ({ sub, ...accounts.get(sub) }) } : undefined),
  });
  idp.on('request', provider.callback());
  h = await startHarness({
    OIDC_ISSUER_URL: issuer,
    OIDC_CLIENT_ID: 'preflight-console',
    OIDC_CLIENT_SECRET: 'a-client-secret-for-tests',
    OIDC_REDIRECT_URL: `${ORIGIN}/console/sso/callback`,
    OIDC_LABEL: 'Sign in with Example SSO',
  });
});
afterAll(async () => {
  await h?.close();
  await new Promise((resolve) => idp?.close(resolve));
});

/** Follows the provider's redirects and pages (login as `sub`, consent) until it sends the browser back to the console. */
async function throughProvider(start: string, sub: string): Promise<string> {
  const cookies = new Map<string, string>();
  let url = start;
  let method = 'GET';
  let body: string | undefined;
  for (let step = 0; step < 12; step++) {
    if (url.startsWith(`${ORIGIN}/console/`)) return url.slice(ORIGIN.length);
    const res = await fetch(url, {
      method,
      redirect: 'manual',
      headers: { ...(cookies.size ? { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {}), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(body ? { body } : {}),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    const location = res.headers.get('location');
    if (location) {
      url = new URL(location, url).href;
      method = 'GET';
      body = undefined;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`the provider answered ${res.status} without a form: ${html.slice(0, 300)}`);
    const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1];
    url = new URL(action.replaceAll('&amp;', '&'), url).href;
    method = 'POST';
    body = new URLSearchParams(prompt === 'login' ? { prompt, login: sub, password: 'any' } : { prompt: prompt ?? 'consent' }).toString();
  }
  throw new Error('the provider never sent the browser back');
}

async function signInWithSso(sub: string): Promise<{ browser: Browser; reply: Awaited<ReturnType<Browser['get']>> }> {
  const browser = h.browser();
  const start = await browser.get('/console/sso/start');
  expect(start.status).toBe(303);
  expect(start.location!.startsWith(`${issuer}/`)).toBe(true);
  const back = await throughProvider(start.location!, sub);
  return { browser, reply: await browser.get(back) };
}

describe('single sign-on', () => {
  it('offers the provider on the sign-in page and signs in a member whose verified e-mail it names, linking the identity', async () => {
    const page = await h.browser().get('/console/sign-in');
    expect(page.text).toContain('Sign in with Example SSO');
    const orgId = await newOrg(h, 'SSO Org');
    const user = await h.addUser({ orgId, role: 'Admin' });
    accounts.set('sub-member', { email: user.email.toUpperCase(), email_verified: true, name: 'Sam Sso' });
    const before = await h.metric('console_sign_ins_total', { outcome: 'success' });
    const { browser, reply } = await signInWithSso('sub-member');
    expect(reply.status, reply.text.slice(0, 300)).toBe(303);
    expect(reply.location).toBe('/console/');
    const chooser = await browser.get('/console/orgs');
    expect(chooser.text).toContain('SSO Org');
    expect(await h.db.selectFrom('oidc_identities').select(['issuer', 'subject', 'user_id']).where('subject', '=', 'sub-member').execute()).toEqual([
      { issuer, subject: 'sub-member', user_id: user.id },
    ]);
    expect(await h.metric('console_sign_ins_total', { outcome: 'success' })).toBe(before + 1);
  });

  it('admits a new person only with a pending invitation for the verified e-mail, and accepts it', async () => {
    accounts.set('sub-stranger', { email: 'stranger@example.com', email_verified: true, name: 'Stranger' });
    const refused = await signInWithSso('sub-stranger');
    expect(refused.reply.status).toBe(403);
    expect(refused.reply.text).toContain('not a member of any organisation');
    expect(await h.db.selectFrom('users').select('id').where('email', '=', 'stranger@example.com').execute()).toEqual([]);

    const orgId = await newOrg(h, 'Invited Org');
    const invited = await h.call('POST', `/admin/v1/organizations/${orgId}/invitations`, { as: asOperator, body: { email: 'stranger@example.com', role: 'Member' } });
    expect(invited.status).toBe(201);
    const admitted = await signInWithSso('sub-stranger');
    expect(admitted.reply.status).toBe(303);
    const [user] = await h.db.selectFrom('users').selectAll().where('email', '=', 'stranger@example.com').execute();
    expect(user).toMatchObject({ name: 'Stranger', password_hash: null });
    expect((await h.call('GET', `/admin/v1/organizations/${orgId}/invitations`, { as: asOperator })).body).toEqual([]);
  });

  it('refuses an unverified e-mail and a callback whose state was used or never issued', async () => {
    const orgId = await newOrg(h);
    const user = await h.addUser({ orgId, role: 'Member' });
    accounts.set('sub-unverified', { email: user.email, email_verified: false, name: 'Unverified' });
    expect((await signInWithSso('sub-unverified')).reply.status).toBe(403);

    const forged = await h.browser().get('/console/sso/callback?code=abc&state=never-issued');
    expect(forged.status).toBe(400);
    expect(forged.text).toContain('expired or was already used');
  });
});
