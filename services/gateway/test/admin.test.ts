import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../src/app.ts';
import { adminClient, bearer, call, cleanUp, expectProblem, isolation, startTestGateway } from './harness.ts';

const iso = isolation();
let gw: RunningGateway;
let admin: ReturnType<typeof adminClient>;
const missingId = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  gw = await startTestGateway(iso);
  admin = adminClient(gw.url, iso.adminToken);
});
afterAll(async () => {
  await gw?.shutdown();
  await cleanUp(iso);
});

describe('admin authentication', () => {
  it('refuses a missing or wrong operator token with 401 and a Bearer challenge', async () => {
    for (const headers of [{}, bearer('wrong-token-of-some-length'), { authorization: `Basic ${iso.adminToken}` }]) {
      const res = await call(gw.url, 'GET', '/admin/v1/organizations', { headers });
      expectProblem(res, 401, 'Unauthorized.');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="preflight-admin"');
    }
  });

  it('never accepts an API key, even a valid one', async () => {
    const org = await admin.createOrg();
    const { key } = await admin.createKey(org.id, ['read', 'write', 'webhooks']);
    for (const headers of [bearer(key), { 'x-api-key': key }]) {
      expectProblem(await call(gw.url, 'GET', '/admin/v1/organizations', { headers }), 401);
    }
  });
});

describe('organisations', () => {
  it('creates and lists organisations', async () => {
    const created = await admin.createOrg('  Globex  ');
    expect(created).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Globex', createdAt: expect.any(String) });
    expect(new Date(created.createdAt).toISOString()).toBe(created.createdAt);
    const list = await admin.call('GET', '/admin/v1/organizations');
    expect(list.status).toBe(200);
    expect(list.body).toContainEqual(created);
  });

  it('validates the name with a 422 errors map', async () => {
    for (const body of [{}, { name: '   ' }, { name: 'x'.repeat(201) }, { name: 42 }]) {
      const res = await admin.call('POST', '/admin/v1/organizations', body);
      expect(Object.keys(expectProblem(res, 422).errors)).toEqual(['name']);
    }
    const extra = await admin.call('POST', '/admin/v1/organizations', { name: 'A', plan: 'gold' });
    expect(Object.keys(expectProblem(extra, 422).errors)).toEqual(['plan']);
  });

  it('answers malformed JSON with 400 and other media types with 415', async () => {
    expectProblem(await admin.call('POST', '/admin/v1/organizations', '{"name":'), 400);
    const res = await call(gw.url, 'POST', '/admin/v1/organizations', {
      headers: { authorization: `Bearer ${iso.adminToken}`, 'content-type': 'text/plain' },
      body: 'name=x',
    });
    expectProblem(res, 415);
  });
});

describe('API keys', () => {
  it('creates a key shown once, lists it without the key, and revokes it idempotently', async () => {
    const org = await admin.createOrg();
    const created = await admin.createKey(org.id, ['read', 'webhooks'], ' deploy bot ');
    expect(Object.keys(created).sort()).toEqual(['createdAt', 'id', 'key', 'name', 'scopes']);
    expect(created.name).toBe('deploy bot');
    expect(created.scopes).toEqual(['read', 'webhooks']);
    expect(created.key).toMatch(/^svc_test_[0-9A-Za-z]{49}$/);

    const list = await admin.call('GET', `/admin/v1/organizations/${org.id}/api-keys`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        id: created.id,
        name: 'deploy bot',
        scopes: ['read', 'webhooks'],
        prefix: created.key.slice(0, 13),
        lastFour: created.key.slice(-4),
        createdAt: created.createdAt,
        lastUsedAt: null,
        revokedAt: null,
      },
    ]);
    expect(JSON.stringify(list.body)).not.toContain(created.key);

    await admin.revokeKey(org.id, created.id);
    const [revoked] = (await admin.call('GET', `/admin/v1/organizations/${org.id}/api-keys`)).body;
    expect(revoked.revokedAt).toEqual(expect.any(String));
    await admin.revokeKey(org.id, created.id);
    const [again] = (await admin.call('GET', `/admin/v1/organizations/${org.id}/api-keys`)).body;
    expect(again.revokedAt).toBe(revoked.revokedAt);
  });

  it('accepts an empty scope list and an explicit environment', async () => {
    const org = await admin.createOrg();
    const res = await admin.call('POST', `/admin/v1/organizations/${org.id}/api-keys`, { name: 'prod', scopes: [], environment: 'live' });
    expect(res.status).toBe(201);
    expect(res.body.scopes).toEqual([]);
    expect(res.body.key).toMatch(/^svc_live_/);
  });

  it('validates name, scopes and environment with a 422 errors map', async () => {
    const org = await admin.createOrg();
    const cases: Array<[unknown, string[]]> = [
      [{ scopes: ['read'] }, ['name']],
      [{ name: 'a' }, ['scopes']],
      [{ name: 'a', scopes: ['admin'] }, ['scopes.0']],
      [{ name: 'a', scopes: ['read', 'read'] }, ['scopes']],
      [{ name: 'a', scopes: 'read' }, ['scopes']],
      [{ name: 'a', scopes: [], environment: 'prod' }, ['environment']],
    ];
    for (const [body, fields] of cases) {
      const res = await admin.call('POST', `/admin/v1/organizations/${org.id}/api-keys`, body);
      expect(Object.keys(expectProblem(res, 422, 'Validation failed.').errors)).toEqual(fields);
    }
  });

  it('answers 404 for an unknown organisation and for a key of another organisation', async () => {
    expectProblem(await admin.call('POST', `/admin/v1/organizations/${missingId}/api-keys`, { name: 'a', scopes: [] }), 404);
    expectProblem(await admin.call('GET', `/admin/v1/organizations/${missingId}/api-keys`), 404);
    expectProblem(await admin.call('GET', '/admin/v1/organizations/not-a-uuid/api-keys'), 404);

    const mine = await admin.createOrg('Mine');
    const theirs = await admin.createOrg('Theirs');
    const theirKey = await admin.createKey(theirs.id, ['read']);
    expectProblem(await admin.call('DELETE', `/admin/v1/organizations/${mine.id}/api-keys/${theirKey.id}`), 404);
    expectProblem(await admin.call('DELETE', `/admin/v1/organizations/${mine.id}/api-keys/${missingId}`), 404);
    // Still alive: the failed delete did not touch it.
    expect((await call(gw.url, 'GET', '/api/v1/me', { headers: bearer(theirKey.key) })).status).toBe(200);
  });

  it('answers 404 for forwarded admin routes of an unknown organisation, before any upstream', async () => {
    const res = await admin.call('GET', `/admin/v1/organizations/${missingId}/sites`);
    expect(expectProblem(res, 404).detail).toContain(missingId);
  });
});
