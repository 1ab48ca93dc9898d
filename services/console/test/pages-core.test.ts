import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { h as el } from 'preact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicKeys, tokenVerifier } from '@preflight/service-auth';
import { testServiceKeys } from '@preflight/testing';
import { requireRole, requireSession, sendPage, type PageRegistration } from '../src/pages/context.ts';
import { pageRegistrations } from '../src/pages/index.ts';
import { Layout } from '../src/views/layout.tsx';
import { newOrg, startHarness, type Browser, type Harness } from './harness.ts';

/** A stand-in for the gateway's admin API: answers `/admin/v1/answer/<status>` with that status, and remembers the caller. */
let gateway: Server;
const callers: unknown[] = [];
const verifier = tokenVerifier('gateway', parsePublicKeys(testServiceKeys.publicKeys));

/** Test pages, registered like the pages helper's: one calls the admin API, one is for Owners and Admins. */
const testPages: PageRegistration = (router, deps) => {
  router.get('/test/admin-call/:status', requireSession, async (req, res) => {
    const { admin, session } = deps.context(res);
    const answer = await admin<{ ok: boolean }>('GET', `/admin/v1/answer/${req.params.status}`);
    sendPage(res, el(Layout, { title: 'Answer', session }, JSON.stringify(answer)));
  });
  router.get('/test/settings', requireRole('Admin'), (_req, res) => {
    sendPage(res, el(Layout, { title: 'Settings', session: deps.context(res).session }, 'settings'));
  });
};

let h: Harness;
let orgId: string;

beforeAll(async () => {
  gateway = createServer((req, res) => {
    void verifier.verify((req.headers.authorization ?? '').replace(/^Bearer /, '')).then(
      (call) => {
        callers.push({ service: call.service, caller: call.caller });
        const status = Number(req.url!.split('/').pop());
        if (status === 0) {
          req.socket.destroy();
          return;
        }
        if (status < 400) {
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
          return;
        }
        res.writeHead(status, { 'content-type': 'application/problem+json', ...(status === 429 ? { 'retry-after': '7' } : {}) });
        res.end(JSON.stringify({ type: 'about:blank', title: 'x', status, detail: `The gateway said ${status}.`, instance: req.url, traceId: null }));
      },
      () => res.writeHead(401).end(),
    );
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  pageRegistrations.push(testPages);
  h = await startHarness({ GATEWAY_URL: `http://127.0.0.1:${(gateway.address() as AddressInfo).port}` });
  orgId = await newOrg(h, 'Zeta Org');
});
afterAll(async () => {
  await h?.close();
  await new Promise((resolve) => gateway?.close(resolve));
});

async function signedIn(role: 'Owner' | 'Admin' | 'Member'): Promise<{ browser: Browser; userId: string }> {
  const user = await h.addUser({ orgId, role });
  const browser = h.browser();
  await browser.signIn(user.email, user.password);
  return { browser, userId: user.id };
}

describe('the console shell', () => {
  it('serves htmx and the stylesheet under /console/static, with the security headers', async () => {
    const browser = h.browser();
    const htmx = await browser.get('/console/static/htmx.min.js');
    expect(htmx.status).toBe(200);
    expect(htmx.headers.get('content-type')).toMatch(/javascript/);
    expect(htmx.text.length).toBeLessThan(100 * 1024);
    expect(htmx.headers.get('content-security-policy')).toContain("script-src 'self'");
    const css = await browser.get('/console/static/console.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect((await browser.get('/console/static/nothing.js')).status).toBe(404);
  });

  it('answers an unknown console path with the 404 page', async () => {
    const page = await h.browser().get('/console/no-such-page');
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('Page not found');
  });

  it('gives a Member the 403 page on an Owner-and-Admin page', async () => {
    const member = await signedIn('Member');
    const refused = await member.browser.get('/console/test/settings');
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Only Owners and Admins');
    const admin = await signedIn('Admin');
    expect((await admin.browser.get('/console/test/settings')).status).toBe(200);
  });
});

describe('the admin API client', () => {
  it('calls the gateway as the signed-in member', async () => {
    const { browser, userId } = await signedIn('Admin');
    const page = await browser.get('/console/test/admin-call/200');
    expect(page.status).toBe(200);
    expect(page.text).toContain('{&quot;ok&quot;:true}');
    expect(callers.at(-1)).toEqual({ service: 'console', caller: { kind: 'member', orgId, userId, role: 'Admin' } });
  });

  it('turns the gateway\'s problems into the console\'s pages: 404, 403, 429 with Retry-After, 5xx and no answer as 503', async () => {
    const { browser } = await signedIn('Member');
    const notFound = await browser.get('/console/test/admin-call/404');
    expect(notFound.status).toBe(404);
    expect(notFound.text).toContain('Page not found');
    const forbidden = await browser.get('/console/test/admin-call/403');
    expect(forbidden.status).toBe(403);
    expect(forbidden.text).toContain('The gateway said 403.');
    const limited = await browser.get('/console/test/admin-call/429');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    for (const status of [500, 503, 0]) {
      const down = await browser.get(`/console/test/admin-call/${status}`);
      expect(down.status, String(status)).toBe(503);
      expect(down.headers.get('retry-after')).toBeTruthy();
      expect(down.text).toContain('The console is unavailable just now');
    }
  });
});
