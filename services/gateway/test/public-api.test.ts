import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually, freePort } from '@preflight/testing';
import type { RunningGateway } from '../src/app.ts';
import {
  adminClient,
  bearer,
  call,
  cleanUp,
  expectProblem,
  forwardedCall,
  isolation,
  metricValue,
  startTestGateway,
  startUpstreamStub,
  type UpstreamStub,
} from './harness.ts';

const iso = isolation();
let campaign: UpstreamStub;
let issue: UpstreamStub;
/** Forwards to the stubs. */
let gw: RunningGateway;
/** Same schema and Redis, but its issue service is a closed port. */
let other: RunningGateway;
let admin: ReturnType<typeof adminClient>;
let org: { id: string; name: string };
let readKey: { id: string; key: string };

const campaignId = '3b8e4f0a-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
const rateLimitHeaderNames = ['ratelimit-policy', 'ratelimit', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

beforeAll(async () => {
  [campaign, issue] = await Promise.all([startUpstreamStub(), startUpstreamStub()]);
  gw = await startTestGateway(iso, { CAMPAIGN_URL: campaign.url, ISSUE_URL: issue.url });
  other = await startTestGateway(iso, { CAMPAIGN_URL: campaign.url, ISSUE_URL: `http://127.0.0.1:${await freePort()}` });
  admin = adminClient(gw.url, iso.adminToken);
  org = await admin.createOrg('Initech');
  readKey = await admin.createKey(org.id, ['read'], 'CI bot ü');
});
afterAll(async () => {
  await Promise.all([gw?.shutdown(), other?.shutdown()]);
  await Promise.all([campaign?.close(), issue?.close()]);
  await cleanUp(iso);
});
beforeEach(() => {
  campaign.requests.length = 0;
  issue.requests.length = 0;
  campaign.status = 200;
  issue.status = 200;
  campaign.cut = false;
});

describe('authentication on /api/v1', () => {
  it('asks for a key when none is sent', async () => {
    const res = await call(gw.url, 'GET', '/api/v1/campaigns');
    const body = expectProblem(res, 401, 'Unauthorized.');
    expect(body.detail).toMatch(/^No API key was provided/);
    expect(body.instance).toBe('/api/v1/campaigns');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="preflight-api"');
    for (const name of rateLimitHeaderNames) expect(res.headers.get(name)).toBeNull();
  });

  it('refuses malformed, tampered, unknown keys, the admin token and other schemes', async () => {
    const tampered = readKey.key.slice(0, -1) + (readKey.key.endsWith('A') ? 'B' : 'A');
    const cases = [
      bearer('svc_test_nope'),
      bearer(tampered),
      { 'x-api-key': tampered },
      bearer(iso.adminToken),
      { authorization: `Basic ${Buffer.from(`${readKey.key}:`).toString('base64')}` },
    ];
    for (const headers of cases) {
      const res = await call(gw.url, 'GET', '/api/v1/campaigns', { headers });
      expect(expectProblem(res, 401).detail).toBe('The API key is not valid.');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="preflight-api", error="invalid_token"');
    }
    expect(campaign.requests).toHaveLength(0);
    expect(await metricValue(gw.url, 'gateway_auth_failures_total', { reason: 'malformed' })).toBeGreaterThanOrEqual(5);
  });

  it('refuses a well-formed key that was never issued', async () => {
    const { generateApiKey } = await import('../src/auth/api-key-format.ts');
    const res = await call(gw.url, 'GET', '/api/v1/me', { headers: bearer(generateApiKey('test').key) });
    expectProblem(res, 401);
    expect(await metricValue(gw.url, 'gateway_auth_failures_total', { reason: 'unknown' })).toBe(1);
  });

  it('answers /me for any valid key, by either header, and records lastUsedAt', async () => {
    const noScopes = await admin.createKey(org.id, [], 'me only');
    for (const headers of [bearer(noScopes.key), { 'x-api-key': noScopes.key }]) {
      const res = await call(gw.url, 'GET', '/api/v1/me', { headers });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ organization: { id: org.id, name: 'Initech' }, key: { id: noScopes.id, name: 'me only', scopes: [] } });
      expect(res.headers.get('ratelimit-policy')).toBe('"default";q=600;w=60');
    }
    // A key without scopes can do nothing else.
    const denied = await call(gw.url, 'GET', '/api/v1/campaigns', { headers: bearer(noScopes.key) });
    expect(expectProblem(denied, 403, 'Access denied.').detail).toBe("The API key does not carry the required scope 'read'.");
    await eventually(async () => {
      const keys = (await admin.call('GET', `/admin/v1/organizations/${org.id}/api-keys`)).body as Array<{ id: string; lastUsedAt: string | null }>;
      expect(keys.find((k) => k.id === noScopes.id)?.lastUsedAt).toEqual(expect.any(String));
    });
  });
});

describe('route matching comes first', () => {
  it('answers an unknown path with 404 and a known path with a wrong method with 405 and Allow', async () => {
    expectProblem(await call(gw.url, 'GET', '/api/v1/nothing-here'), 404, 'Not found.');
    const res = await call(gw.url, 'PUT', `/api/v1/campaigns/${campaignId}/issues`);
    expectProblem(res, 405, 'Method not allowed.');
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
  });

  it('serves the OpenAPI document without a key and without rate-limit headers', async () => {
    const res = await call(gw.url, 'GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(res.headers.get('ratelimit')).toBeNull();
  });
});

describe('scopes', () => {
  it('refuses a key without the route scope with 403, after counting it against the rate limit', async () => {
    const res = await call(gw.url, 'POST', `/api/v1/campaigns/${campaignId}/issues`, { headers: bearer(readKey.key), body: { title: 'x' } });
    const body = expectProblem(res, 403, 'Access denied.');
    expect(body.detail).toBe("The API key does not carry the required scope 'write'.");
    for (const name of rateLimitHeaderNames) expect(res.headers.get(name)).not.toBeNull();
    expect(issue.requests).toHaveLength(0);
  });

  it('treats scopes as independent: write does not imply read', async () => {
    const writer = await admin.createKey(org.id, ['write']);
    expectProblem(await call(gw.url, 'GET', `/api/v1/campaigns/${campaignId}/issues`, { headers: bearer(writer.key) }), 403);
    const res = await call(gw.url, 'POST', `/api/v1/campaigns/${campaignId}/issues`, { headers: bearer(writer.key), body: { title: 'ok' } });
    expect(res.status).toBe(200);
  });
});

describe('forwarding', () => {
  it('forwards method, path, query and body, with the caller identity and the trace', async () => {
    const writer = await admin.createKey(org.id, ['write'], 'CI bot ü');
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    issue.status = 201;
    const body = JSON.stringify({ title: 'Broken button', severity: 'High', type: 'Bug' });
    const res = await call(gw.url, 'POST', `/api/v1/campaigns/${campaignId}/issues?dryRun=1`, {
      headers: {
        ...bearer(writer.key),
        'content-type': 'application/merge-patch+json',
        accept: 'text/json',
        traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
        'x-preflight-actor': 'admin',
        'x-preflight-org-id': '11111111-1111-4111-8111-111111111111',
        'x-preflight-anything': 'spoofed',
        cookie: 'session=1',
      },
      body,
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-upstream-secret')).toBeNull();
    expect(res.headers.get('x-trace-id')).toBe(traceId);
    expect(res.headers.get('x-ratelimit-limit')).toBe('600');
    expect(res.body.echoed.url).toBe(`/api/v1/campaigns/${campaignId}/issues?dryRun=1`);

    expect(issue.requests).toHaveLength(1);
    const seen = issue.requests[0]!;
    expect(seen.method).toBe('POST');
    expect(seen.body).toBe(body);
    expect(seen.headers['content-type']).toBe('application/merge-patch+json');
    expect(seen.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(seen.headers.accept).toBe('text/json');
    expect(seen.headers['x-preflight-actor']).toBe('api-key');
    expect(seen.headers['x-preflight-org-id']).toBe(org.id);
    expect(seen.headers['x-preflight-key-id']).toBe(writer.id);
    expect(seen.headers['x-preflight-key-name']).toBe('CI%20bot%20%C3%BC');
    expect(seen.headers['x-preflight-anything']).toBeUndefined();
    // The client's key stays behind; the service gets the gateway's token, which carries the caller.
    expect(await forwardedCall(seen.headers.authorization, 'issue')).toEqual({ service: 'gateway', caller: { kind: 'api-key', orgId: org.id, keyId: writer.id, keyName: 'CI bot ü' } });
    expect(seen.headers.cookie).toBeUndefined();
    const [, forwardedTrace, parentSpan] = String(seen.headers.traceparent).split('-');
    expect(forwardedTrace).toBe(traceId);
    expect(parentSpan).not.toBe('00f067aa0ba902b7'); // the gateway's own span
    expect(campaign.requests).toHaveLength(0);
  });

  it('forwards small, large and chunked bodies byte for byte', async () => {
    const writer = await admin.createKey(org.id, ['write'], 'bodies');
    issue.status = 201;
    const path = `/api/v1/campaigns/${campaignId}/issues`;
    const json = (n: number) => JSON.stringify({ title: 'ü'.repeat(n) });
    // Every body is read whole (up to the 256 KiB limit: 'ü' is 2 bytes) and sent with the request head.
    for (const body of [json(10), json(32_000), json(120 * 1024)]) {
      const res = await call(gw.url, 'POST', path, { headers: bearer(writer.key), body });
      expect(res.status).toBe(201);
      expect(res.body.echoed.body).toBe(body);
    }
    // No Content-Length: Transfer-Encoding chunked, streamed.
    const parts = ['{"title":', '"in parts"}'];
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${gw.url}${path}`, { method: 'POST', headers: { ...bearer(writer.key), 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.write(parts[0]);
      req.end(parts[1]);
    });
    expect(chunked.status).toBe(201);
    expect(JSON.parse(chunked.body).echoed.body).toBe(parts.join(''));
    // A declared length is passed on as is; how a chunked body is framed upstream is undici's choice.
    expect(issue.requests.map((r) => r.headers['content-length']).slice(0, 3)).toEqual([json(10), json(32_000), json(120 * 1024)].map((b) => String(Buffer.byteLength(b))));
    expect(issue.requests[3]?.body).toBe(parts.join(''));
  });

  it('forwards nothing when the client hangs up halfway through its body, and serves the next call', async () => {
    const writer = await admin.createKey(org.id, ['write'], 'hang-up');
    const { port } = new URL(gw.url);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      `POST /api/v1/campaigns/${campaignId}/issues HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${writer.key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title":"only the start',
    );
    // Hang up once the gateway has admitted the call (the key's rate limit counts it), i.e. while
    // it reads the body: each /me below counts one more.
    let polls = 0;
    await eventually(async () => {
      const me = await call(gw.url, 'GET', '/api/v1/me', { headers: bearer(writer.key) });
      polls += 1;
      expect(me.headers.get('x-ratelimit-remaining')).toBe(String(600 - polls - 1));
    });
    socket.destroy();
    const next = await call(gw.url, 'GET', '/api/v1/campaigns', { headers: bearer(readKey.key) });
    expect(next.status).toBe(200);
    expect(issue.requests).toHaveLength(0);
  });

  it('routes by the table and passes upstream errors through untouched', async () => {
    campaign.status = 500;
    for (let i = 0; i < 6; i += 1) {
      const res = await call(gw.url, 'GET', '/api/v1/campaigns?status=Active', { headers: bearer(readKey.key) });
      expect(res.status).toBe(500);
      expect(res.body.echoed.url).toBe('/api/v1/campaigns?status=Active');
    }
    expect(campaign.requests).toHaveLength(6);
    // An answer, even a 500, is not an outage: the breaker stays closed.
    expect(await metricValue(gw.url, 'gateway_circuit_breaker_state', { upstream: 'campaign' })).toBe(0);
    expect(await metricValue(gw.url, 'gateway_upstream_requests_total', { upstream: 'campaign', outcome: 'server_error' })).toBe(6);
  });

  it('cuts the client connection when the answer of the service breaks off after its headers, and serves the next call', async () => {
    campaign.cut = true;
    const res = await fetch(`${gw.url}/api/v1/campaigns`, { headers: bearer(readKey.key) });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    campaign.cut = false;
    const next = await call(gw.url, 'GET', '/api/v1/campaigns', { headers: bearer(readKey.key) });
    expect(next.status).toBe(200);
    expect(next.body.echoed.url).toBe('/api/v1/campaigns');
  });

  it('forwards admin calls as the operator, with no organisation header', async () => {
    campaign.status = 201;
    const res = await admin.call('POST', `/admin/v1/organizations/${org.id}/sites`, { name: 'Shop', url: 'https://shop.example' });
    expect(res.status).toBe(201);
    const seen = campaign.requests[0]!;
    expect(seen.url).toBe(`/admin/v1/organizations/${org.id}/sites`);
    expect(seen.headers['x-preflight-actor']).toBe('admin');
    expect(seen.headers['x-preflight-org-id']).toBeUndefined();
    expect(JSON.parse(seen.body)).toEqual({ name: 'Shop', url: 'https://shop.example' });
  });

  it('answers 503 naming the service when it is down, and opens its breaker', async () => {
    const path = `/api/v1/issues/${campaignId}`;
    const first = await call(other.url, 'GET', path, { headers: bearer(readKey.key) });
    const body = expectProblem(first, 503, 'Service unavailable.');
    expect(body.detail).toBe('The issue service is unavailable. Try again shortly.');
    expect(body.service).toBe('issue');
    expect(body.type).toBe('https://preflight.dev/problems/upstream-unavailable');
    await eventually(async () => {
      expectProblem(await call(other.url, 'GET', path, { headers: bearer(readKey.key) }), 503);
      expect(await metricValue(other.url, 'gateway_circuit_breaker_state', { upstream: 'issue' })).toBe(2);
    });
    const rejected = await call(other.url, 'GET', path, { headers: bearer(readKey.key) });
    expect(expectProblem(rejected, 503).service).toBe('issue');
    expect(await metricValue(other.url, 'gateway_upstream_requests_total', { upstream: 'issue', outcome: 'breaker_open' })).toBeGreaterThanOrEqual(1);
    // Other upstreams are unaffected.
    expect((await call(other.url, 'GET', '/api/v1/campaigns', { headers: bearer(readKey.key) })).status).toBe(200);
  });
});

describe('revocation', () => {
  it('refuses a revoked key on the very next request, on another replica that had it cached', async () => {
    const key = await admin.createKey(org.id, ['read']);
    // `other` reads the key and caches it in the shared Redis.
    expect((await call(other.url, 'GET', '/api/v1/me', { headers: bearer(key.key) })).status).toBe(200);
    expect((await call(other.url, 'GET', '/api/v1/me', { headers: bearer(key.key) })).status).toBe(200);
    await admin.revokeKey(org.id, key.id); // through `gw`
    for (const base of [other.url, gw.url]) {
      const res = await call(base, 'GET', '/api/v1/me', { headers: bearer(key.key) });
      expect(expectProblem(res, 401).detail).toBe('The API key has been revoked.');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="preflight-api", error="invalid_token"');
    }
  });
});
