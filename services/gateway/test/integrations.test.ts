import { TRACKER_HOOK_BODY_LIMIT } from '@preflight/http';
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../src/app.ts';
import { adminClient, bearer, call, cleanUp, expectProblem, forwardedCall, isolation, startTestGateway, startUpstreamStub, type UpstreamStub } from './harness.ts';

/**
 * The integration service's routes through the gateway: the admin connection routes (operator
 * token, forwarded with the admin identity) and the trackers' inbound hook (no credential, the
 * raw body and the signature headers forwarded as they came, limited per connection id).
 */

const iso = isolation();
let gw: RunningGateway;
let integration: UpstreamStub;
let admin: ReturnType<typeof adminClient>;
let orgId: string;
const HOOK_LIMIT = 3;

beforeAll(async () => {
  integration = await startUpstreamStub();
  gw = await startTestGateway(iso, { INTEGRATION_URL: integration.url, HOOK_RATE_LIMIT_MAX: String(HOOK_LIMIT), HOOK_RATE_LIMIT_WINDOW_SECONDS: '60' });
  admin = adminClient(gw.url, iso.adminToken);
  orgId = (await admin.createOrg('Integrations Inc')).id;
});
afterAll(async () => {
  await gw?.shutdown();
  await integration?.close();
  await cleanUp(iso);
});

const lastSeen = () => integration.requests.at(-1)!;

describe('admin integration routes', () => {
  it('forwards every route to the integration service with the operator identity', async () => {
    const id = randomUUID();
    const issueId = randomUUID();
    const cases: Array<[string, string, unknown]> = [
      ['POST', `/admin/v1/organizations/${orgId}/integrations`, { kind: 'slack', name: 'QA', config: {}, credentials: { webhookUrl: 'https://hooks.slack.com/services/x' } }],
      ['GET', `/admin/v1/organizations/${orgId}/integrations`, undefined],
      ['PATCH', `/admin/v1/integrations/${id}`, { paused: true }],
      ['DELETE', `/admin/v1/integrations/${id}`, undefined],
      ['POST', `/admin/v1/integrations/${id}/test`, undefined],
      ['GET', `/admin/v1/integrations/${id}/activity?limit=10`, undefined],
      ['POST', `/admin/v1/integrations/${id}/inbound-secret`, undefined],
      ['POST', `/admin/v1/integrations/${id}/retry`, undefined],
      ['GET', `/admin/v1/issues/${issueId}/links`, undefined],
    ];
    for (const [method, path, body] of cases) {
      const before = integration.requests.length;
      const res = await admin.call(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(200);
      expect(integration.requests.length, `${method} ${path}`).toBe(before + 1);
      const seen = lastSeen();
      expect(seen.method).toBe(method);
      expect(seen.url).toBe(path);
      expect(seen.body).toBe(body === undefined ? '' : JSON.stringify(body));
      expect(seen.headers['x-preflight-actor']).toBe('admin');
      expect(await forwardedCall(seen.headers.authorization, 'integration')).toEqual({ service: 'gateway', caller: { kind: 'admin' } });
    }
  });

  it('needs the operator token, and answers an unknown organisation itself', async () => {
    const before = integration.requests.length;
    expectProblem(await call(gw.url, 'GET', `/admin/v1/organizations/${orgId}/integrations`), 401);
    expectProblem(await call(gw.url, 'PATCH', `/admin/v1/integrations/${randomUUID()}`, { body: { paused: true } }), 401);
    expectProblem(await admin.call('GET', `/admin/v1/organizations/${randomUUID()}/integrations`), 404);
    expect(integration.requests.length).toBe(before);
  });

  it('allows PATCH where it is routed, and says so in Allow', async () => {
    const res = await admin.call('PUT', `/admin/v1/integrations/${randomUUID()}`, { paused: true });
    expectProblem(res, 405);
    expect(res.headers.get('allow')).toBe('PATCH, DELETE');
  });
});

describe('inbound hooks', () => {
  const secret = 'whsec-of-the-connection';
  const sign = (body: string) => `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;

  it('needs no credential and forwards the raw body byte for byte with the signature headers, and no identity', async () => {
    const connectionId = randomUUID();
    // Spacing, key order, escapes and non-ASCII text a re-serialisation would change.
    const body = '{ "action":"closed",\n  "issue": {"number": 7, "state_reason" :"completed", "title":"Caf\\u00e9 \u00fcber \ud83d\ude80", "n": 1.50}}\n';
    const res = await call(gw.url, 'POST', `/integrations/v1/hooks/${connectionId}?x=1`, {
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': sign(body),
        'x-github-event': 'issues',
        'x-github-delivery': 'd-1',
        'user-agent': 'GitHub-Hookshot/abc',
        'x-preflight-actor': 'admin',
        'x-preflight-org-id': randomUUID(),
        authorization: 'Bearer not-forwarded',
        cookie: 'c=1',
        'x-unlisted': 'dropped',
      },
      body,
    });
    expect(res.status).toBe(200);
    const seen = lastSeen();
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe(`/integrations/v1/hooks/${connectionId}?x=1`);
    expect(seen.body).toBe(body);
    expect(seen.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(seen.headers['x-hub-signature-256']).toBe(sign(seen.body));
    expect(seen.headers['x-github-event']).toBe('issues');
    expect(seen.headers['x-github-delivery']).toBe('d-1');
    expect(seen.headers['user-agent']).toBe('GitHub-Hookshot/abc');
    expect(seen.headers['content-type']).toBe('application/json');
    for (const name of ['x-preflight-actor', 'x-preflight-org-id', 'cookie', 'x-unlisted']) expect(seen.headers[name], name).toBeUndefined();
    // The client's Authorization is not passed on: the gateway's own token, with no caller, is.
    expect(await forwardedCall(seen.headers.authorization, 'integration')).toEqual({ service: 'gateway', caller: undefined });
    // No Idempotency-Key handling on an unauthenticated route; the rate-limit headers are there.
    expect(res.headers.get('ratelimit-policy')).toBe(`"hook";q=${HOOK_LIMIT};w=60`);
  });

  it('forwards Linear and Jira signature headers too', async () => {
    const body = '{"type":"Issue","action":"update"}';
    await call(gw.url, 'POST', `/integrations/v1/hooks/${randomUUID()}`, { headers: { 'linear-signature': 'abc', 'linear-event': 'Issue', 'linear-delivery': 'l-1' }, body });
    expect(lastSeen().headers).toMatchObject({ 'linear-signature': 'abc', 'linear-event': 'Issue', 'linear-delivery': 'l-1' });
    await call(gw.url, 'POST', `/integrations/v1/hooks/${randomUUID()}`, { headers: { 'x-hub-signature': 'sha256=def', 'x-atlassian-webhook-identifier': 'j-1' }, body });
    expect(lastSeen().headers).toMatchObject({ 'x-hub-signature': 'sha256=def', 'x-atlassian-webhook-identifier': 'j-1' });
  });

  it('passes the service\'s refusal through (a bad signature is its 401 to give)', async () => {
    integration.status = 401;
    try {
      const res = await call(gw.url, 'POST', `/integrations/v1/hooks/${randomUUID()}`, { body: '{}' });
      expect(res.status).toBe(401);
    } finally {
      integration.status = 200;
    }
  });

  it('answers a connection id that is no UUID with 404 itself, and other methods with 405', async () => {
    const before = integration.requests.length;
    expectProblem(await call(gw.url, 'POST', '/integrations/v1/hooks/not-a-uuid', { body: '{}' }), 404);
    const get = await call(gw.url, 'GET', `/integrations/v1/hooks/${randomUUID()}`);
    expectProblem(get, 405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(integration.requests.length).toBe(before);
  });

  it('limits each connection id on its own: 429 with Retry-After past HOOK_RATE_LIMIT_MAX, not forwarded', async () => {
    const busy = randomUUID();
    for (let i = 0; i < HOOK_LIMIT; i++) {
      const res = await call(gw.url, 'POST', `/integrations/v1/hooks/${busy}`, { body: '{}' });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(HOOK_LIMIT - 1 - i));
    }
    const before = integration.requests.length;
    const limited = await call(gw.url, 'POST', `/integrations/v1/hooks/${busy}`, { body: '{}' });
    expectProblem(limited, 429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(integration.requests.length).toBe(before);
    // The same id in upper case is the same connection.
    expectProblem(await call(gw.url, 'POST', `/integrations/v1/hooks/${busy.toUpperCase()}`, { body: '{}' }), 429);
    expect((await call(gw.url, 'POST', `/integrations/v1/hooks/${randomUUID()}`, { body: '{}' })).status).toBe(200);
  });

  it('takes tracker bodies up to TRACKER_HOOK_BODY_LIMIT (a long issue is more than the API’s 256 KiB); beyond, 413 before anything is forwarded', async () => {
    const large = `"${'x'.repeat(512 * 1024)}"`;
    const taken = await call(gw.url, 'POST', `/integrations/v1/hooks/${randomUUID()}`, { body: large });
    expect(taken.status).toBe(200);
    expect(lastSeen().body).toBe(large);
    const before = integration.requests.length;
    const res = await call(gw.url, 'POST', `/integrations/v1/hooks/${randomUUID()}`, { body: `"${'x'.repeat(TRACKER_HOOK_BODY_LIMIT)}"` });
    expectProblem(res, 413);
    expect(integration.requests.length).toBe(before);
  });

  it('does not accept an API key or the operator token as a substitute for anything: they are simply not forwarded', async () => {
    const res = await call(gw.url, 'POST', `/integrations/v1/hooks/${randomUUID()}`, { headers: bearer(iso.adminToken), body: '{}' });
    expect(res.status).toBe(200);
    expect(lastSeen().headers['x-preflight-actor']).toBeUndefined();
    expect(await forwardedCall(lastSeen().headers.authorization, 'integration')).toEqual({ service: 'gateway', caller: undefined });
  });
});
