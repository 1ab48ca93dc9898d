import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { generateDeploymentKeys, parseSigningKey, signServiceToken, type TokenClaims } from '@preflight/service-auth';
import type { ApiResponse } from '../support/client.ts';
import { expectProblem } from './problems.ts';

// Issue 22, finding 2: the service ports (8081–8085) answer only signed tokens from the gateway
// or a named peer; identity headers alone count for nothing; decrypted webhook secrets go to the
// delivery service alone. Driven against the shared system's real processes, port by port.
const sys = inject('system');
const signer = (service: string) => parseSigningKey(service, sys.serviceAuth.keys[service]!);
const token = (claims: TokenClaims, key = signer(claims.from)) => signServiceToken(key, claims).then((t) => `Bearer ${t}`);

async function get(url: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

const org = randomUUID();
/** Per service port: a route the operator may read (any answer but 401/403 proves the token passed). */
const PORTS = {
  campaign: `/admin/v1/organizations/${org}/sites`,
  issue: `/admin/v1/issues/${randomUUID()}`,
  webhook: `/admin/v1/organizations/${org}/webhooks`,
  delivery: `/admin/v1/webhooks/${randomUUID()}/deliveries`,
  integration: `/admin/v1/organizations/${org}/integrations`,
} as const;
const SECRET_ROUTES = [`/internal/v1/orgs/${org}/endpoints?eventType=IssueCreated`, `/internal/v1/webhooks/${randomUUID()}/endpoint`];

describe.each(Object.entries(PORTS))('the %s service port', (service, path) => {
  const url = `${sys.serviceUrls[service as keyof typeof PORTS]}${path}`;
  const now = Math.floor(Date.now() / 1000);

  it('answers the gateway\'s token for the operator', async () => {
    const res = await get(url, { authorization: await token({ from: 'gateway', to: service, caller: { kind: 'admin' } }) });
    expect([200, 404], res.text).toContain(res.status);
  });

  it('refuses a request without a token, or with identity headers and no token', async () => {
    expect(expectProblem(await get(url), 401).detail).toMatch(/Authorization: Bearer/);
    const spoofed = { 'x-preflight-actor': 'admin', 'x-preflight-org-id': org, 'x-preflight-key-id': randomUUID(), 'x-preflight-key-name': 'x' };
    expectProblem(await get(url, spoofed), 401);
    expectProblem(await get(url, { ...spoofed, authorization: 'Bearer not-a-token' }), 401);
  });

  it('refuses before reading a body: a malformed one without a token is a 401, not a 400', async () => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"not json' });
    const text = await res.text();
    expectProblem({ status: res.status, headers: res.headers, text, body: JSON.parse(text) }, 401);
  });

  it('refuses a forged, an expired and a wrong-audience token', async () => {
    const forger = parseSigningKey('gateway', generateDeploymentKeys(['gateway'], 'e2e').keys.gateway!);
    const forged = await token({ from: 'gateway', to: service, caller: { kind: 'admin' } }, forger);
    expect(expectProblem(await get(url, { authorization: forged }), 401).detail).toMatch(/signature/);
    const expired = await token({ from: 'gateway', to: service, caller: { kind: 'admin' }, issuedAt: now - 600 });
    expect(expectProblem(await get(url, { authorization: expired }), 401).detail).toMatch(/expired/);
    const elsewhere = await token({ from: 'gateway', to: service === 'issue' ? 'campaign' : 'issue', caller: { kind: 'admin' } });
    expect(expectProblem(await get(url, { authorization: elsewhere }), 401).detail).toMatch(/another service/);
  });

  it('takes no caller from a peer\'s token, and keeps health and metrics open', async () => {
    const peer = await token({ from: 'integration', to: service, caller: { kind: 'admin' } });
    expect(expectProblem(await get(url, { authorization: peer }), 401).detail).toMatch(/Only the gateway/);
    for (const probe of ['/healthz', '/readyz', '/metrics']) expect((await fetch(`${sys.serviceUrls[service as keyof typeof PORTS]}${probe}`)).status, probe).toBe(200);
  });
});

describe('decrypted webhook secrets', () => {
  const webhook = sys.serviceUrls.webhook;

  it.each(SECRET_ROUTES)('%s answers the delivery service', async (path) => {
    const res = await get(`${webhook}${path}`, { authorization: await token({ from: 'delivery', to: 'webhook' }) });
    expect([200, 404], res.text).toContain(res.status);
  });

  it.each(SECRET_ROUTES)('%s refuses a valid token of any other service, the gateway\'s for the operator included', async (path) => {
    for (const from of ['issue', 'integration', 'campaign']) {
      const res = await get(`${webhook}${path}`, { authorization: await token({ from, to: 'webhook' }) });
      expect(expectProblem(res, 403).detail, from).toMatch(new RegExp(`${from} service may not call the webhook service`));
    }
    const gateway = await get(`${webhook}${path}`, { authorization: await token({ from: 'gateway', to: 'webhook', caller: { kind: 'admin' } }) });
    expect(expectProblem(gateway, 403).detail).toMatch(/only the delivery service, not gateway/);
  });
});

describe('peers', () => {
  it('reach only the ports they call', async () => {
    // The issue service reads campaigns; the delivery service never does.
    const campaign = `${sys.serviceUrls.campaign}/internal/v1/campaigns/${randomUUID()}`;
    expect((await get(campaign, { authorization: await token({ from: 'issue', to: 'campaign' }) })).status).toBe(404);
    expectProblem(await get(campaign, { authorization: await token({ from: 'delivery', to: 'campaign' }) }), 403);
    // The gateway's token reaches no internal route but the ones it has a reason to: none.
    expectProblem(await get(campaign, { authorization: await token({ from: 'gateway', to: 'campaign' }) }), 403);
  });
});
