import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../src/app.ts';
import { cleanUp, expectProblem, forwardedCall, isolation, metricValue, startTestGateway } from './harness.ts';
import { rawRequest, within } from './raw-http.ts';

/** What reached the stand-in console. */
interface PageRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

type Answer = (req: IncomingMessage, res: ServerResponse) => void;

/** A page with what a console page answers with: two cookies, its policies, an htmx trigger. */
const page: Answer = (_req, res) => {
  res.setHeader('set-cookie', ['__Host-preflight_session=abc; Path=/; Secure; HttpOnly; SameSite=Lax', 'flash=saved; Path=/console; Secure']);
  res.setHeader('content-security-policy', "default-src 'self'");
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('referrer-policy', 'same-origin');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('hx-trigger', 'issueFiled');
  res.setHeader('x-internal-detail', 'console internals');
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end('<!doctype html><title>Campaigns</title>');
};

const iso = isolation();
let gw: RunningGateway;
let consoleServer: Server;
let consolePort: number;
const seen: PageRequest[] = [];
let answer: Answer = page;

function listen(): Promise<void> {
  return new Promise((resolve) => consoleServer.listen(consolePort, '127.0.0.1', resolve));
}

beforeAll(async () => {
  consoleServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      answer(req, res);
    });
  });
  consolePort = 0;
  await listen();
  consolePort = (consoleServer.address() as { port: number }).port;
  gw = await startTestGateway(iso, { CONSOLE_URL: `http://127.0.0.1:${consolePort}` });
});
afterAll(async () => {
  await gw?.shutdown();
  if (consoleServer.listening) await new Promise((resolve) => consoleServer.close(resolve));
  await cleanUp(iso);
});

describe('the console through the gateway', () => {
  it('passes a page request through with its cookie and htmx headers, as the gateway, and every cookie back', async () => {
    answer = page;
    const browser = {
      cookie: '__Host-preflight_session=abc',
      'hx-request': 'true',
      'hx-target': 'issues',
      'hx-current-url': 'http://127.0.0.1/console/campaigns',
      'x-csrf-token': 'token-1',
      'accept-language': 'en-GB',
    };
    const res = await fetch(`${gw.url}/console/campaigns?status=Active`, {
      headers: {
        ...browser,
        // What the browser claims about itself never reaches the console as such.
        authorization: 'Bearer from-the-browser',
        'x-preflight-actor': 'admin',
        'x-forwarded-for': '203.0.113.9',
      },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('<!doctype html><title>Campaigns</title>');
    expect(res.headers.getSetCookie()).toEqual(['__Host-preflight_session=abc; Path=/; Secure; HttpOnly; SameSite=Lax', 'flash=saved; Path=/console; Secure']);
    expect(res.headers.get('content-security-policy')).toBe("default-src 'self'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('hx-trigger')).toBe('issueFiled');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-internal-detail')).toBeNull();

    const got = seen.at(-1)!;
    expect(got).toMatchObject({ method: 'GET', url: '/console/campaigns?status=Active' });
    expect(got.headers).toMatchObject({ ...browser, 'x-forwarded-proto': 'http' });
    expect(got.headers['x-forwarded-for']).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    expect(got.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    expect(Object.keys(got.headers).filter((name) => name.startsWith('x-preflight-'))).toEqual([]);
    // The console's port answers only service tokens: the gateway's own, acting for nobody.
    expect(await forwardedCall(got.headers.authorization, 'console')).toEqual({ service: 'gateway', caller: undefined });
  });

  it('passes redirects back without following them', async () => {
    answer = (_req, res) => {
      res.writeHead(302, { location: '/console/sign-in', 'set-cookie': ['__Host-preflight_session=; Path=/; Secure; HttpOnly; Max-Age=0', 'next=%2Fconsole%2Fsettings; Path=/console'] });
      res.end();
    };
    const count = seen.length;
    const res = await fetch(`${gw.url}/console/settings/api-keys`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/console/sign-in');
    expect(res.headers.getSetCookie()).toHaveLength(2);
    expect(seen.length).toBe(count + 1);
  });

  it('passes a form POST body byte for byte, up to 1 MiB', async () => {
    answer = (_req, res) => {
      res.writeHead(303, { location: '/console/campaigns' });
      res.end();
    };
    const form = 'email=ana%40example.com&password=p%26ss+w%C3%B6rd&_csrf=token-1';
    const res = await fetch(`${gw.url}/console/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://127.0.0.1:8080', referer: 'http://127.0.0.1:8080/console/sign-in' },
      body: form,
    });
    expect(res.status).toBe(303);
    const got = seen.at(-1)!;
    expect(got.method).toBe('POST');
    expect(got.body.toString('latin1')).toBe(form);
    expect(got.headers).toMatchObject({ 'content-type': 'application/x-www-form-urlencoded', origin: 'http://127.0.0.1:8080', referer: 'http://127.0.0.1:8080/console/sign-in' });

    const large = `note=${'a'.repeat(1024 * 1024 - 5)}`;
    expect((await fetch(`${gw.url}/console/notes`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: large })).status).toBe(303);
    expect(seen.at(-1)!.body.length).toBe(1024 * 1024);

    const count = seen.length;
    const tooLarge = await fetch(`${gw.url}/console/notes`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `${large}b` });
    expect(tooLarge.status).toBe(413);
    expect(seen.length).toBe(count);
  });

  it('redirects / to the console', async () => {
    for (const method of ['GET', 'HEAD']) {
      const res = await fetch(`${gw.url}/`, { method, redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/console/');
    }
  });

  it('forwards nothing outside /console, nor a path that climbs out of it', async () => {
    const count = seen.length;
    for (const path of ['/console/../metrics', '/console/%2e%2e/readyz', '/console/./x', '/consoles']) {
      const exchange = await rawRequest(gw.url, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      expect(await within(5_000, exchange.status, path)).toBe(404);
    }
    expect(seen.length).toBe(count);
  });

  it('counts every page under the one route label /console/*', async () => {
    answer = page;
    await fetch(`${gw.url}/console/issues/6f1c1f0e-8a43-4d4e-9a43-2f1c1f0e8a43`);
    expect(await metricValue(gw.url, 'http_server_requests_total', { route: '/console/*', method: 'GET', status: '200' })).toBeGreaterThan(0);
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    expect(text).not.toMatch(/route="\/console\/issues/);
  });

  it('answers 503 with Retry-After while the console is down, and serves it again once it is back', async () => {
    const closed = new Promise((resolve) => consoleServer.close(resolve));
    consoleServer.closeAllConnections();
    await closed;
    const res = await fetch(`${gw.url}/console/campaigns`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    const problem = expectProblem({ status: res.status, headers: res.headers, body: await res.json() }, 503, 'Service unavailable.');
    expect(problem.service).toBe('console');

    answer = page;
    await listen();
    const back = await fetch(`${gw.url}/console/campaigns`);
    expect(back.status).toBe(200);
  });
});
