import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '@preflight/testing';
import type { RunningGateway } from '../src/app.ts';
import { adminClient, bearer, call, cleanUp, expectProblem, isolation, metricValue, startTestGateway, startUpstreamStub, type UpstreamStub } from './harness.ts';
import { rawRequest, within } from './raw-http.ts';

// Issue 22, findings 1, 4 and 9 at the gateway: hostile clients cannot hold shared capacity,
// and a restarted service is back within a second or two (docs/reliability.md).
const iso = isolation();
let campaign: UpstreamStub;
let issue: UpstreamStub;
/** Short deadlines and a low per-key bound, so the tests need not wait the defaults out. */
let gw: RunningGateway;
/** Two connections to the issue service and a 300 ms queue deadline. */
let narrow: RunningGateway;
let admin: ReturnType<typeof adminClient>;
let reader: { id: string; key: string };
let writer: { id: string; key: string };

const id = '3b8e4f0a-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
const BODY_DEADLINE_MS = 600;

beforeAll(async () => {
  [campaign, issue] = await Promise.all([startUpstreamStub(), startUpstreamStub()]);
  const upstreams = { CAMPAIGN_URL: campaign.url, ISSUE_URL: issue.url };
  gw = await startTestGateway(iso, { ...upstreams, REQUEST_BODY_TIMEOUT_MS: String(BODY_DEADLINE_MS), KEY_CONCURRENCY_MAX: '3' });
  narrow = await startTestGateway(iso, { ...upstreams, UPSTREAM_CONNECTIONS: '2', UPSTREAM_QUEUE_TIMEOUT_MS: '300' });
  admin = adminClient(gw.url, iso.adminToken);
  const org = await admin.createOrg('Hardening');
  reader = await admin.createKey(org.id, ['read'], 'reader');
  writer = await admin.createKey(org.id, ['write'], 'writer');
});
afterAll(async () => {
  issue?.release();
  await Promise.all([gw?.shutdown(), narrow?.shutdown()]);
  await Promise.all([campaign?.close(), issue?.close()]);
  await cleanUp(iso);
});
beforeEach(() => {
  issue.release();
  campaign.requests.length = 0;
  issue.requests.length = 0;
});

const head = (method: string, path: string, headers: Record<string, string | number>) =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;

describe('requests that declare a body they should not have, or too big a one', () => {
  it('refuses a GET declaring 100 MB at once with 400, closes the connection and touches no service', async () => {
    const started = Date.now();
    const ex = await rawRequest(gw.url, head('GET', `/api/v1/campaigns/${id}/issues`, { Authorization: `Bearer ${reader.key}`, 'Content-Length': 104_857_600 }) + '{"a');
    expect(await within(2_000, ex.status, 'answer')).toBe(400);
    await within(2_000, ex.closed, 'close');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(ex.received()).toMatch(/application\/problem\+json/);
    expect(ex.received()).toMatch(/declares one/);
    expect(issue.requests).toHaveLength(0);
  });

  it('refuses HEAD and DELETE with a chunked body, and closes once the body stops coming', async () => {
    for (const [method, path, key] of [['HEAD', '/api/v1/campaigns', reader.key], ['DELETE', `/api/v1/webhooks/${id}`, reader.key]] as const) {
      const ex = await rawRequest(gw.url, head(method, path, { Authorization: `Bearer ${key}`, 'Transfer-Encoding': 'chunked' }) + '5\r\nhello\r\n');
      expect(await within(2_000, ex.status, method)).toBe(400);
      await within(4_000, ex.closed, `${method} close once the body stops coming`);
    }
    expect(campaign.requests).toHaveLength(0);
  });

  it('refuses a declared Content-Length over 256 KiB at once with 413, before authentication', async () => {
    const ex = await rawRequest(gw.url, head('POST', `/api/v1/campaigns/${id}/issues`, { 'Content-Type': 'application/json', 'Content-Length': 256 * 1024 + 1 }));
    expect(await within(2_000, ex.status, 'answer')).toBe(413);
    await within(4_000, ex.closed, 'close once the body stops coming');
    expect(ex.received()).toMatch(/exceeds the limit of 262144 bytes/);
  });

  it('lets a client still sending a refused body read the 413, instead of a reset connection', async () => {
    // The client is busy (it reads nothing) while the gateway answers; it then sends the rest of
    // its body and only afterwards reads, as a loaded client process does.
    const answered = async () => (await metricValue(gw.url, 'http_server_requests_total', { route: '/api/v1/campaigns/:id/issues', method: 'POST', status: '413' })) ?? 0;
    const before = await answered();
    const { hostname, port } = new URL(gw.url);
    const socket = connect(Number(port), hostname);
    await once(socket, 'connect');
    let received = '';
    socket.on('error', (err) => (received += `[${err.message}]`));
    socket.pause();
    const length = 2 * 1024 * 1024;
    socket.write(head('POST', `/api/v1/campaigns/${id}/issues`, { ...bearer(writer.key), 'Content-Type': 'application/json', 'Content-Length': length }));
    socket.write('y'.repeat(64 * 1024));
    await eventually(async () => expect(await answered()).toBe(before + 1));
    socket.write('y'.repeat(length - 64 * 1024));
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.resume();
    await eventually(() => expect(received).toMatch(/exceeds the limit of 262144 bytes/));
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received).not.toMatch(/\[/);
    socket.destroy();
    expect(issue.requests).toHaveLength(0);
  });

  it('refuses a chunked body that grows past 256 KiB with 413, forwarding nothing', async () => {
    const res = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${gw.url}/api/v1/campaigns/${id}/issues`, { method: 'POST', headers: { ...bearer(writer.key), 'content-type': 'application/json' } }, (r) => {
        r.resume();
        resolve(r.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write(`{"title":"${'x'.repeat(200 * 1024)}`);
      req.end(`${'x'.repeat(100 * 1024)}"}`);
    });
    expect(res).toBe(413);
    expect(issue.requests).toHaveLength(0);
  });

  it('answers a body trickled past the read deadline with 408 and closes, forwarding nothing', async () => {
    const started = Date.now();
    const ex = await rawRequest(gw.url, head('POST', `/api/v1/campaigns/${id}/issues`, { Authorization: `Bearer ${writer.key}`, 'Content-Type': 'application/json', 'Content-Length': 1000 }) + '{"title":');
    const trickle = setInterval(() => ex.socket.write('x'), 100);
    try {
      expect(await within(5_000, ex.status, 'answer')).toBe(408);
      await within(2_000, ex.closed, 'close');
    } finally {
      clearInterval(trickle);
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(BODY_DEADLINE_MS - 50);
    expect(ex.received()).toMatch(/Request timeout\./);
    expect(issue.requests).toHaveLength(0);
  });
});

describe('per-key concurrency and the upstream queue', () => {
  it('answers a key beyond 3 requests in flight with 429 and Retry-After: 1, and lets other keys through', async () => {
    issue.hang = true;
    const held = [0, 1, 2].map(() => call(gw.url, 'GET', `/api/v1/issues/${id}`, { headers: bearer(reader.key) }));
    await eventually(() => expect(issue.held()).toBe(3));
    const refused = await call(gw.url, 'GET', '/api/v1/campaigns', { headers: bearer(reader.key) });
    expectProblem(refused, 429, 'Too many requests.');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.detail).toMatch(/More than 3 requests of this API key are in flight/);
    expect((await call(gw.url, 'GET', '/api/v1/me', { headers: bearer(writer.key) })).status).toBe(200);
    issue.release();
    for (const res of await Promise.all(held)) expect(res.status).toBe(200);
    expect((await call(gw.url, 'GET', '/api/v1/campaigns', { headers: bearer(reader.key) })).status).toBe(200);
  });

  it('gives a key its places back from clients that left while the key was being checked', async () => {
    // Each client sends a whole request and hangs up at once, so some leave mid-authentication.
    await Promise.all(
      Array.from({ length: 60 }, async () => {
        const ex = await rawRequest(gw.url, head('GET', '/api/v1/campaigns', { Authorization: `Bearer ${reader.key}` }));
        ex.socket.destroy();
      }),
    );
    issue.hang = true;
    const held = [0, 1, 2].map(() => call(gw.url, 'GET', `/api/v1/issues/${id}`, { headers: bearer(reader.key) }));
    await eventually(() => expect(issue.held()).toBe(3));
    issue.release();
    for (const res of await Promise.all(held)) expect(res.status).toBe(200);
  });

  it('answers a request that waits for an upstream connection past the deadline with 503 and Retry-After, without opening the breaker', async () => {
    issue.hang = true;
    const held = [0, 1].map(() => call(narrow.url, 'GET', `/api/v1/issues/${id}`, { headers: bearer(reader.key) }));
    await eventually(() => expect(issue.held()).toBe(2));
    const started = Date.now();
    const queued = await call(narrow.url, 'GET', `/api/v1/issues/${id}`, { headers: bearer(reader.key) });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(expectProblem(queued, 503, 'Service unavailable.').detail).toMatch(/busy: no connection to it freed up within 0.3 s/);
    expect(queued.headers.get('retry-after')).toBe('1');
    expect(await metricValue(narrow.url, 'gateway_circuit_breaker_state', { upstream: 'issue' })).toBe(0);
    // Other services keep their own connections.
    expect((await call(narrow.url, 'GET', '/api/v1/campaigns', { headers: bearer(reader.key) })).status).toBe(200);
    issue.release();
    for (const res of await Promise.all(held)) expect(res.status).toBe(200);
    expect((await call(narrow.url, 'GET', `/api/v1/issues/${id}`, { headers: bearer(reader.key) })).status).toBe(200);
  });
});

describe('protocol details', () => {
  it('sends X-Content-Type-Options: nosniff on every answer', async () => {
    const answers = [
      await call(gw.url, 'GET', '/api/v1/campaigns', { headers: bearer(reader.key) }),
      await call(gw.url, 'GET', '/api/v1/me', { headers: bearer(reader.key) }),
      await call(gw.url, 'GET', '/api/v1/campaigns'),
      await call(gw.url, 'GET', '/nowhere'),
      await call(gw.url, 'GET', '/healthz'),
      await call(gw.url, 'GET', '/api/v1/openapi.json'),
    ];
    for (const res of answers) expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('answers HEAD on a GET route like GET, without a body', async () => {
    for (const path of ['/api/v1/campaigns', '/api/v1/me']) {
      const get = await fetch(`${gw.url}${path}`, { headers: bearer(reader.key) });
      const res = await fetch(`${gw.url}${path}`, { method: 'HEAD', headers: bearer(reader.key) });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(get.headers.get('content-type'));
      expect(res.headers.get('x-ratelimit-limit')).toBe('600');
      expect(await res.text()).toBe('');
      await get.text();
    }
    expect(campaign.requests.map((r) => r.method)).toEqual(['GET', 'HEAD']);
  });

  it('refuses two Authorization headers with 400 instead of using the first', async () => {
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${gw.url}/api/v1/me`, { method: 'GET' }, (r) => {
        let text = '';
        r.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: r.statusCode ?? 0, body: text }));
      });
      req.setHeader('authorization', [`Bearer ${reader.key}`, `Bearer ${writer.key}`]);
      req.on('error', reject);
      req.end();
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).detail).toBe('The request carries 2 Authorization headers; send exactly one.');
  });
});

describe('circuit breaker', () => {
  it('lets a restarted service back within 2 s of it listening again, answering 503 with Retry-After meanwhile', async () => {
    await issue.stop();
    let outage: Awaited<ReturnType<typeof call>> | undefined;
    await eventually(async () => {
      outage = await call(gw.url, 'GET', `/api/v1/issues/${id}`, { headers: bearer(reader.key) });
      expect(await metricValue(gw.url, 'gateway_circuit_breaker_state', { upstream: 'issue' })).toBe(2);
    });
    expectProblem(outage!, 503);
    expect(outage!.headers.get('retry-after')).toBe('1');
    await issue.start();
    const back = Date.now();
    await eventually(
      async () => expect((await call(gw.url, 'GET', `/api/v1/issues/${id}`, { headers: bearer(reader.key) })).status).toBe(200),
      { timeoutMs: 5_000, intervalMs: 50 },
    );
    expect(Date.now() - back).toBeLessThanOrEqual(2_000);
  });
});
