import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, TEST_DATABASE_URL } from '@preflight/testing';
import { rawRequest, within } from '../../services/gateway/test/raw-http.ts';
import { databaseThroughLink, type TcpLink } from '../../services/gateway/test/tcp-link.ts';
import { call, freshTenant, type ApiResponse } from '../support/client.ts';
import { startSystem, type RunningSystem } from '../support/system.ts';
import { expectProblem } from './problems.ts';

// Issue 22, findings 1, 3, 4, 5 and 9, against the system as separate processes: its own
// copy, because these tests restart a service and cut the services off Postgres (through a
// TCP relay in front of the real server). docs/reliability.md lists what each test proves.
const BODY_DEADLINE_MS = 1_500;
let sys: RunningSystem;
let link: TcpLink;
let t: Awaited<ReturnType<typeof freshTenant>>;
let other: Awaited<ReturnType<typeof freshTenant>>;
let issueId: string;
let otherIssueId: string;

beforeAll(async () => {
  const db = await databaseThroughLink(TEST_DATABASE_URL);
  link = db.link;
  sys = await startSystem({ DATABASE_URL: db.url, REQUEST_BODY_TIMEOUT_MS: String(BODY_DEADLINE_MS) });
  [t, other] = await Promise.all([freshTenant(sys), freshTenant(sys)]);
  issueId = (await t.admin.createIssue(t.campaign.id, { title: 'Seed', severity: 'High', type: 'Bug' })).id;
  otherIssueId = (await other.admin.createIssue(other.campaign.id, { title: 'Other', severity: 'Low', type: 'Bug' })).id;
}, 180_000);
afterAll(async () => {
  await link?.restore();
  await sys?.stop();
  await link?.close();
});

const key = () => t.keys.all!.key;
const fileIssue = (body: unknown) => call(sys, 'POST', `/api/v1/campaigns/${t.campaign.id}/issues`, { apiKey: key(), body });
const head = (method: string, path: string, headers: Record<string, string | number>) =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;

describe('finding 3: hostile bodies are 422s naming the field', () => {
  it('reports top-level properties named after Object.prototype members', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const res = await call(sys, 'POST', `/api/v1/campaigns/${t.campaign.id}/issues`, {
        apiKey: key(),
        rawBody: `{"title":"t","severity":"High","type":"Bug",${JSON.stringify(name)}:{}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(expectProblem(res, 422).errors[name]).toEqual([`'${name}' is not a recognised property.`]);
    }
  });

  it('refuses a NUL character in an issue title, description or pageUrl, and in an organisation name', async () => {
    const valid = { title: 'Broken', severity: 'High', type: 'Bug' };
    for (const [field, value] of [['title', 'a\u0000b'], ['description', 'x\u0000'], ['pageUrl', 'https://shop.example.com/\u0000']] as const) {
      const res = await fileIssue({ ...valid, [field]: value });
      expect(expectProblem(res, 422).errors[field]).toEqual(['Must not contain the NUL character (U+0000).']);
    }
    const org = await call(sys, 'POST', '/admin/v1/organizations', { token: sys.adminToken, body: { name: 'Acme\u0000' } });
    expect(expectProblem(org, 422).errors.name).toEqual(['Must not contain the NUL character (U+0000).']);
  });

  it('refuses webhook events nested 10,000 deep with a 422 naming the field', async () => {
    const res = await call(sys, 'POST', '/api/v1/webhooks', {
      apiKey: key(),
      rawBody: `{"url":"https://hooks.example.com/x","events":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(expectProblem(res, 422).errors).toEqual({ events: ['Nested deeper than 64 levels of arrays and objects.'] });
  });
});

describe('finding 9: protocol details', () => {
  it('sends nosniff from every service and through the gateway', async () => {
    for (const { url } of Object.values(sys.replicas).flat()) expect((await fetch(`${url}/healthz`)).headers.get('x-content-type-options')).toBe('nosniff');
    const listed = await call(sys, 'GET', `/api/v1/campaigns/${t.campaign.id}/issues`, { apiKey: key() });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('answers HEAD on a GET route like GET without a body, and two Authorization headers with 400', async () => {
    const res = await fetch(`${sys.gatewayUrl}/api/v1/issues/${issueId}`, { method: 'HEAD', headers: { 'x-api-key': key() } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.text()).toBe('');
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${sys.gatewayUrl}/api/v1/me`, (r) => (r.resume(), resolve(r.statusCode ?? 0)));
      req.setHeader('authorization', [`Bearer ${key()}`, `Bearer ${other.keys.all!.key}`]);
      req.on('error', reject).end();
    });
    expect(status).toBe(400);
  });
});

describe('finding 1: no tenant can hold shared capacity', () => {
  it('refuses 70 GETs declaring 100 MB bodies at once, while another organisation is served', async () => {
    const path = `/api/v1/campaigns/${t.campaign.id}/issues`;
    const attackers = await Promise.all(
      Array.from({ length: 70 }, () => rawRequest(sys.gatewayUrl, head('GET', path, { 'X-Api-Key': key(), 'Content-Length': 104_857_600 }) + '{')),
    );
    const started = Date.now();
    const victim = await call(sys, 'GET', `/api/v1/issues/${otherIssueId}`, { apiKey: other.keys.all!.key });
    expect(victim.status).toBe(200);
    for (const a of attackers) {
      expect(await within(3_000, a.status, 'attacker answer')).toBe(400);
      await within(3_000, a.closed, 'attacker close');
    }
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('answers a POST body trickled past the read deadline with 408 and closes, filing nothing', async () => {
    const before = (await call(sys, 'GET', `/api/v1/campaigns/${t.campaign.id}/issues`, { apiKey: key() })).body.total;
    const ex = await rawRequest(
      sys.gatewayUrl,
      head('POST', `/api/v1/campaigns/${t.campaign.id}/issues`, { 'X-Api-Key': key(), 'Content-Type': 'application/json', 'Content-Length': 200 }) + '{"title":"slow',
    );
    const trickle = setInterval(() => ex.socket.write('w'), 200);
    try {
      expect(await within(BODY_DEADLINE_MS + 3_000, ex.status, '408')).toBe(408);
      await within(2_000, ex.closed, 'close');
    } finally {
      clearInterval(trickle);
    }
    expect((await call(sys, 'GET', `/api/v1/campaigns/${t.campaign.id}/issues`, { apiKey: key() })).body.total).toBe(before);
  });

  it('answers a declared Content-Length over 256 KiB with 413 at once', async () => {
    const ex = await rawRequest(sys.gatewayUrl, head('POST', `/api/v1/campaigns/${t.campaign.id}/issues`, { 'X-Api-Key': key(), 'Content-Type': 'application/json', 'Content-Length': 300 * 1024 }));
    expect(await within(2_000, ex.status, '413')).toBe(413);
    await within(4_000, ex.closed, 'close once the body stops coming');
  });
});

// Before finding 4: the issue service's restart there leaves failures in the gateway breaker's window.
describe('finding 5: a database outage is a 503 a client may retry', () => {
  it('answers 503 dependency-unavailable with Retry-After from the issue service while Postgres is unreachable', async () => {
    // Warm: the gateway then authenticates the key from Redis, so the request reaches the service.
    expect((await call(sys, 'GET', `/api/v1/issues/${issueId}`, { apiKey: key() })).status).toBe(200);
    await link.cut();
    try {
      for (const res of [
        await call(sys, 'GET', `/admin/v1/issues/${issueId}`, { token: sys.adminToken }),
        await call(sys, 'GET', `/api/v1/issues/${issueId}`, { apiKey: key() }),
        await fileIssue({ title: 'During the outage', severity: 'High', type: 'Bug' }),
      ]) {
        const body = expectProblem(res, 503);
        expect(body.type).toBe('https://preflight.dev/problems/dependency-unavailable');
        expect(res.headers.get('retry-after')).toBe('1');
      }
    } finally {
      await link.restore();
    }
    await eventually(async () => expect((await call(sys, 'GET', `/admin/v1/issues/${issueId}`, { token: sys.adminToken })).status).toBe(200), { timeoutMs: 20_000 });
  });
});

describe('finding 4: a restarted service is back within 2 s of being ready', () => {
  it('answers 503 with Retry-After while the issue service is down, then 200 within 2 s of it being ready', { timeout: 120_000 }, async () => {
    const seen: Array<{ at: number; res: ApiResponse }> = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        seen.push({ at: Date.now(), res: await call(sys, 'GET', `/api/v1/issues/${issueId}`, { apiKey: key() }) });
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    let readyAt = 0;
    try {
      // Every replica killed, so the service is down at any replica count; ready is when the
      // process the gateway calls answers /readyz (others may still be starting).
      await sys.stopService('issue', 'SIGKILL');
      const restarted = sys.restart('issue');
      restarted.catch(() => undefined);
      readyAt = await eventually(
        async () => {
          expect((await fetch(`${sys.serviceUrls.issue}/readyz`)).status).toBe(200);
          return Date.now();
        },
        { timeoutMs: 60_000, intervalMs: 50 },
      );
      await restarted;
      await eventually(() => expect(seen.some((s) => s.at >= readyAt && s.res.status === 200)).toBe(true), { timeoutMs: 10_000, intervalMs: 50 });
    } finally {
      polling = false;
      await poller;
    }
    const firstOk = seen.find((s) => s.at >= readyAt && s.res.status === 200)!;
    expect(firstOk.at - readyAt).toBeLessThanOrEqual(2_000);
    const failures = seen.filter((s) => s.res.status !== 200);
    expect(failures.length).toBeGreaterThan(0);
    for (const { res } of failures) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
    }
  });
});
