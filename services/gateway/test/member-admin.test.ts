import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '@preflight/http';
import { generateDeploymentKeys, parseSigningKey, serviceTokens, signServiceToken, type SigningKey } from '@preflight/service-auth';
import { eventually, testServiceKeys, testSigningKey } from '@preflight/testing';
import type { RunningGateway } from '../src/app.ts';
import { loadGatewayConfig } from '../src/config.ts';
import { adminClient, bearer, call, cleanUp, expectProblem, forwardedCall, isolation, startTestGateway, startUpstreamStub, type UpstreamStub } from './harness.ts';

type Member = Extract<Caller, { kind: 'member' }>;

// The console's key pair: the harness's ring has none, so the gateway trusts this one alongside.
const consoleKeys = generateDeploymentKeys(['console'], 'member-test');
const consoleKey: SigningKey = parseSigningKey('console', consoleKeys.keys.console!);
const consoleTokens = serviceTokens(consoleKey);
const ring = `${testServiceKeys.publicKeys},${consoleKeys.publicKeys}`;

const iso = isolation();
const missingId = '00000000-0000-4000-8000-000000000000';
const ADMIN_LIMIT = 500;
let gw: RunningGateway;
let upstream: UpstreamStub;
let admin: ReturnType<typeof adminClient>;
let orgA: string;
let orgB: string;
let owner: Member;
let adminMember: Member;
let plain: Member;

const member = (orgId: string, role: Member['role']): Member => ({ kind: 'member', orgId, userId: randomUUID(), role });
const as = async (m: Member) => ({ authorization: await consoleTokens.authorization('gateway', m) });
const memberCall = async (m: Member, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(gw.url, method, path, { headers: { ...(await as(m)), ...headers }, body });

beforeAll(async () => {
  upstream = await startUpstreamStub();
  const upstreams = Object.fromEntries(['CAMPAIGN_URL', 'ISSUE_URL', 'WEBHOOK_URL', 'DELIVERY_URL', 'INTEGRATION_URL', 'CONSOLE_URL'].map((name) => [name, upstream.url]));
  gw = await startTestGateway(iso, { ...upstreams, SERVICE_AUTH_PUBLIC_KEYS: ring, ADMIN_RATE_LIMIT_MAX: String(ADMIN_LIMIT) });
  admin = adminClient(gw.url, iso.adminToken);
  orgA = (await admin.createOrg('Acme')).id;
  orgB = (await admin.createOrg('Globex')).id;
  owner = member(orgA, 'Owner');
  adminMember = member(orgA, 'Admin');
  plain = member(orgA, 'Member');
});
afterAll(async () => {
  await gw?.shutdown();
  await upstream?.close();
  await cleanUp(iso);
});

describe('what console members may call', () => {
  it('keeps the operator\'s own endpoints from every member, Owners included', async () => {
    const before = await admin.call('GET', '/admin/v1/organizations');
    const calls: Array<[string, string, unknown?]> = [
      ['GET', '/admin/v1/organizations'],
      ['POST', '/admin/v1/organizations', { name: 'Mine' }],
      ['GET', '/admin/v1/operator-tokens'],
      ['POST', '/admin/v1/operator-tokens', { name: 'mine', scopes: ['admin:write'] }],
      ['DELETE', `/admin/v1/operator-tokens/${missingId}`],
      ['GET', '/admin/v1/audit-log'],
    ];
    for (const [method, path, body] of calls) {
      const problem = expectProblem(await memberCall(owner, method, path, body), 403, 'Access denied.');
      expect(problem.detail).toBe('This operation is reserved to the operator.');
    }
    expect((await admin.call('GET', '/admin/v1/organizations')).body).toEqual(before.body);
  });

  it('keeps Admin endpoints from the role Member and forwards Owners and Admins as themselves', async () => {
    const sent = upstream.requests.length;
    const adminOnly: Array<[string, string, unknown?]> = [
      ['POST', `/admin/v1/organizations/${orgA}/webhooks`, { url: 'https://example.com/hook' }],
      ['GET', `/admin/v1/organizations/${orgA}/api-keys`],
      ['POST', `/admin/v1/campaigns/${missingId}/status`, { status: 'Active' }],
    ];
    for (const [method, path, body] of adminOnly) {
      const problem = expectProblem(await memberCall(plain, method, path, body), 403);
      expect(problem.detail).toBe('This operation needs the role Owner or Admin; yours is Member.');
      expect(problem.requiredRoles).toEqual(['Owner', 'Admin']);
    }
    expect(upstream.requests.length).toBe(sent);

    for (const m of [adminMember, owner]) {
      const res = await memberCall(m, 'POST', `/admin/v1/organizations/${orgA}/webhooks`, { url: 'https://example.com/hook' });
      expect(res.status).toBe(200);
      const got = upstream.requests.at(-1)!;
      expect(got).toMatchObject({ method: 'POST', url: `/admin/v1/organizations/${orgA}/webhooks`, body: '{"url":"https://example.com/hook"}' });
      expect(await forwardedCall(got.headers.authorization, 'webhook')).toEqual({ service: 'gateway', caller: m });
    }
  });

  it('lets every member call Member endpoints, forwarded as that member', async () => {
    const campaignId = randomUUID();
    for (const [method, path, service] of [
      ['GET', `/admin/v1/campaigns/${campaignId}`, 'campaign'],
      ['GET', `/admin/v1/organizations/${orgA}/campaigns`, 'campaign'],
      ['POST', `/admin/v1/campaigns/${campaignId}/issues`, 'issue'],
      ['GET', `/admin/v1/issues/${campaignId}/links`, 'integration'],
    ] as const) {
      const res = await memberCall(plain, method, path, method === 'POST' ? { title: 'Broken' } : undefined);
      expect(res.status, path).toBe(200);
      const got = upstream.requests.at(-1)!;
      expect(got.url).toBe(path);
      expect(await forwardedCall(got.headers.authorization, service)).toEqual({ service: 'gateway', caller: plain });
      // Read only by services of the previous release: the member's organisation, never a key's identity.
      expect(got.headers['x-preflight-actor']).toBe('member');
      expect(got.headers['x-preflight-org-id']).toBe(orgA);
    }
  });

  it('answers another organisation\'s :orgId with the 404 of an unknown organisation', async () => {
    const sent = upstream.requests.length;
    for (const suffix of ['webhooks', 'integrations', 'campaigns', 'sites', 'api-keys']) {
      const mine = expectProblem(await memberCall(owner, 'GET', `/admin/v1/organizations/${orgB}/${suffix}`), 404, 'Not found.');
      const unknown = expectProblem(await admin.call('GET', `/admin/v1/organizations/${missingId}/${suffix}`), 404, 'Not found.');
      expect(mine.detail).toBe(`No organization with id '${orgB}' was found.`);
      expect(mine.detail.replace(orgB, missingId)).toBe(unknown.detail);
      expect(mine.type).toBe(unknown.type);
    }
    const malformed = expectProblem(await memberCall(owner, 'GET', '/admin/v1/organizations/not-an-id/webhooks'), 404);
    expect(malformed.detail).toBe(expectProblem(await admin.call('GET', '/admin/v1/organizations/not-an-id/webhooks'), 404).detail);
    expect(upstream.requests.length).toBe(sent);
  });

  it('shows every member its own organisation, and another one as unknown', async () => {
    const own = await memberCall(plain, 'GET', `/admin/v1/organizations/${orgA}`);
    expect(own.status).toBe(200);
    expect(own.body).toEqual({ id: orgA, name: 'Acme', createdAt: expect.any(String) });
    expect((await admin.call('GET', `/admin/v1/organizations/${orgB}`)).body).toMatchObject({ id: orgB, name: 'Globex' });
    const other = expectProblem(await memberCall(owner, 'GET', `/admin/v1/organizations/${orgB}`), 404, 'Not found.');
    expect(other.detail.replace(orgB, missingId)).toBe(expectProblem(await admin.call('GET', `/admin/v1/organizations/${missingId}`), 404).detail);
  });

  it('creates, lists and revokes API keys of its own organisation only', async () => {
    const theirs = await admin.createKey(orgB, ['read'], 'globex-ci');
    const created = await memberCall(adminMember, 'POST', `/admin/v1/organizations/${orgA}/api-keys`, { name: 'acme-ci', scopes: ['read'] });
    expect(created.status).toBe(201);
    const listed = await memberCall(adminMember, 'GET', `/admin/v1/organizations/${orgA}/api-keys`);
    expect(listed.body.map((k: { id: string }) => k.id)).toEqual([created.body.id]);

    expectProblem(await memberCall(adminMember, 'GET', `/admin/v1/organizations/${orgB}/api-keys`), 404);
    expectProblem(await memberCall(adminMember, 'DELETE', `/admin/v1/organizations/${orgB}/api-keys/${theirs.id}`), 404);
    // Their key id under the member's own organisation names no key of it.
    expectProblem(await memberCall(adminMember, 'DELETE', `/admin/v1/organizations/${orgA}/api-keys/${theirs.id}`), 404);
    expect((await call(gw.url, 'GET', '/api/v1/me', { headers: bearer(theirs.key) })).status).toBe(200);

    expect((await call(gw.url, 'GET', '/api/v1/me', { headers: bearer(created.body.key) })).body.organization.id).toBe(orgA);
    expect((await memberCall(adminMember, 'DELETE', `/admin/v1/organizations/${orgA}/api-keys/${created.body.id}`)).status).toBe(204);
    expectProblem(await call(gw.url, 'GET', '/api/v1/me', { headers: bearer(created.body.key) }), 401);
  });

  it('records members\' writes in the audit log, naming the member and its organisation', async () => {
    const writer = member(orgA, 'Owner');
    const key = await memberCall(writer, 'POST', `/admin/v1/organizations/${orgA}/api-keys`, { name: 'audited', scopes: [] });
    expect(key.status).toBe(201);
    const issueId = randomUUID();
    expect((await memberCall(writer, 'POST', `/admin/v1/issues/${issueId}/status`, { status: 'Triaged' })).status).toBe(200);
    // A refused write and a read are not recorded.
    expectProblem(await memberCall(writer, 'POST', '/admin/v1/organizations', { name: 'x' }), 403);

    const entries = await eventually(async () => {
      const log = await admin.call('GET', '/admin/v1/audit-log?limit=200');
      const mine = (log.body as Array<{ actor: { id: string } }>).filter((e) => e.actor.id === writer.userId);
      expect(mine).toHaveLength(2);
      return mine;
    });
    const actor = { kind: 'member', id: writer.userId, name: null };
    expect(entries).toEqual([
      expect.objectContaining({ actor, method: 'POST', path: `/admin/v1/issues/${issueId}/status`, status: 200, orgId: orgA }),
      expect.objectContaining({ actor, method: 'POST', path: `/admin/v1/organizations/${orgA}/api-keys`, status: 201, orgId: orgA }),
    ]);
  });

  it('limits each member in a bucket of its own, with the operator\'s admin policy', async () => {
    const first = await memberCall(owner, 'GET', `/admin/v1/organizations/${orgA}/campaigns`);
    const second = await memberCall(owner, 'GET', `/admin/v1/organizations/${orgA}/campaigns`);
    expect(first.headers.get('ratelimit-policy')).toBe(`"admin";q=${ADMIN_LIMIT};w=60`);
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(Number(first.headers.get('x-ratelimit-remaining')) - 1);
    // Same organisation and role, another user: a fresh bucket.
    const other = await memberCall(member(orgA, 'Owner'), 'GET', `/admin/v1/organizations/${orgA}/campaigns`);
    expect(other.headers.get('x-ratelimit-remaining')).toBe(String(ADMIN_LIMIT - 1));
  });

  it('keeps Idempotency-Key records per member', async () => {
    const path = `/admin/v1/campaigns/${randomUUID()}/issues`;
    const body = { title: 'Checkout button does nothing' };
    const headers = { 'idempotency-key': `member-${randomUUID()}` };
    const sent = upstream.requests.length;
    const first = await memberCall(plain, 'POST', path, body, headers);
    const replay = await memberCall(plain, 'POST', path, body, headers);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(upstream.requests.length).toBe(sent + 1);
    // Another member with the same key runs its own request.
    const theirs = await memberCall(member(orgA, 'Member'), 'POST', path, body, headers);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(upstream.requests.length).toBe(sent + 2);
  });
});

describe('console tokens the gateway refuses', () => {
  it('answers 401 with the operator\'s challenge for any token that does not act for a console member', async () => {
    const rogue = generateDeploymentKeys(['console'], 'member-test');
    const now = Math.floor(Date.now() / 1000);
    const claims = { from: 'console', to: 'gateway', caller: owner };
    const tokens: Record<string, string> = {
      'signed with another key under the console\'s kid': await signServiceToken(parseSigningKey('console', rogue.keys.console!), claims),
      'signed with a key not in the ring': await signServiceToken(parseSigningKey('console', generateDeploymentKeys(['console'], 'rogue').keys.console!), claims),
      expired: await signServiceToken(consoleKey, { ...claims, issuedAt: now - 3_600 }),
      'addressed to another service': await signServiceToken(consoleKey, { ...claims, to: 'campaign' }),
      'a member claimed by another service': await signServiceToken(testSigningKey('campaign'), { ...claims, from: 'campaign' }),
      'the gateway\'s own token for the operator': await signServiceToken(testSigningKey('gateway'), { from: 'gateway', to: 'gateway', caller: { kind: 'admin' } }),
      'a console token without a member': (await consoleTokens.authorization('gateway')).slice('Bearer '.length),
      'a member named by no UUID': await signServiceToken(consoleKey, { ...claims, caller: { ...owner, userId: 'alice' } }),
      'not a token at all': 'aaaa.bbbb.cccc',
    };
    const sent = upstream.requests.length;
    for (const [what, token] of Object.entries(tokens)) {
      const res = await call(gw.url, 'GET', `/admin/v1/organizations/${orgA}/webhooks`, { headers: bearer(token) });
      expectProblem(res, 401, 'Unauthorized.');
      expect(res.headers.get('www-authenticate'), what).toBe('Bearer realm="preflight-admin"');
    }
    expect(upstream.requests.length).toBe(sent);
  });

  it('never counts them as wrong operator tokens, nor refuses a member while the address is locked out', async () => {
    const locking = await startTestGateway(iso, { CAMPAIGN_URL: upstream.url, SERVICE_AUTH_PUBLIC_KEYS: ring, ADMIN_AUTH_FAILURES_MAX: '2', DB_POOL_MAX: '2' });
    try {
      const expired = await signServiceToken(consoleKey, { from: 'console', to: 'gateway', caller: owner, issuedAt: Math.floor(Date.now() / 1000) - 3_600 });
      for (let i = 0; i < 4; i++) expectProblem(await call(locking.url, 'GET', '/admin/v1/audit-log', { headers: bearer(expired) }), 401);
      expect((await call(locking.url, 'GET', '/admin/v1/audit-log', { headers: bearer(iso.adminToken) })).status).toBe(200);

      for (let i = 0; i < 2; i++) expectProblem(await call(locking.url, 'GET', '/admin/v1/audit-log', { headers: bearer(`wrong-operator-token-${i}`) }), 401);
      expectProblem(await call(locking.url, 'GET', '/admin/v1/audit-log', { headers: bearer(iso.adminToken) }), 429);
      const res = await call(locking.url, 'GET', `/admin/v1/organizations/${orgA}/campaigns`, { headers: await as(owner) });
      expect(res.status).toBe(200);
    } finally {
      await locking.shutdown();
    }
  });

  it('refuses an ADMIN_TOKEN shaped like a JWT at start: it would be read as a console token', () => {
    const source = { ADMIN_TOKEN: 'eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl', SERVICE_AUTH_PUBLIC_KEYS: ring };
    expect(() => loadGatewayConfig(source, false)).toThrow(/ADMIN_TOKEN/);
    expect(loadGatewayConfig({ ...source, ADMIN_TOKEN: 'adm_plain_token_of_length' }, false).ADMIN_TOKEN).toBe('adm_plain_token_of_length');
  });
});
