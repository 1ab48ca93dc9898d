import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, sql } from '@preflight/db';
import { eventually, TEST_DATABASE_URL } from '@preflight/testing';
import { Registry } from 'prom-client';
import type { Logger } from '@preflight/log';
import type { RunningGateway } from '../src/app.ts';
import { AuditRecorder } from '../src/audit/recorder.ts';
import { gatewayMetrics } from '../src/metrics.ts';
import { deleteAuditEntriesOlderThan } from '../src/storage/audit-log.ts';
import type { IdentityDb } from '../src/storage/schema.ts';
import {
  adminClient,
  bearer,
  call,
  cleanUp,
  expectProblem,
  isolation,
  startTestGateway,
  startUpstreamStub,
  type Call,
  type UpstreamStub,
} from './harness.ts';

// Operator tokens and the audit log (admin-api-v1.md, "Operator tokens and the audit log"; issue 22).
const iso = isolation();
let campaign: UpstreamStub;
/** Forwards to the campaign stub. */
let gw: RunningGateway;
/** A second replica on the same schema and Redis. */
let other: RunningGateway;
/** Its own schema and prefix, with an admin limit of 3 per minute. */
const limitedIso = isolation();
let limited: RunningGateway;
let admin: ReturnType<typeof adminClient>;
const database = createDatabase<IdentityDb>({ url: TEST_DATABASE_URL, schema: iso.schema, poolMax: 2, applicationName: 'operator-tokens-test' });
const campaignId = '3b8e4f0a-1c2d-4e5f-8a9b-0c1d2e3f4a5b';

interface CreatedToken {
  id: string;
  name: string;
  scopes: string[];
  token: string;
  createdAt: string;
  expiresAt: string | null;
}

beforeAll(async () => {
  campaign = await startUpstreamStub();
  gw = await startTestGateway(iso, { CAMPAIGN_URL: campaign.url });
  other = await startTestGateway(iso, { CAMPAIGN_URL: campaign.url });
  limited = await startTestGateway(limitedIso, { ADMIN_RATE_LIMIT_MAX: '3', ADMIN_RATE_LIMIT_WINDOW_SECONDS: '60' });
  admin = adminClient(gw.url, iso.adminToken);
});
afterAll(async () => {
  await Promise.all([gw?.shutdown(), other?.shutdown(), limited?.shutdown()]);
  await campaign?.close();
  await database.close();
  await Promise.all([cleanUp(iso), cleanUp(limitedIso)]);
});
beforeEach(() => {
  campaign.requests.length = 0;
  campaign.status = 200;
});

async function mint(body: Record<string, unknown>, base = gw.url, token = iso.adminToken): Promise<CreatedToken> {
  const res = await call(base, 'POST', '/admin/v1/operator-tokens', { headers: bearer(token), body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as CreatedToken;
}

const as = (token: string, method: string, path: string, body?: unknown, base = gw.url) => call(base, method, path, { headers: bearer(token), body });

/** The audit log entry of the request that got `res`, found by its trace id (undefined while not written yet). */
async function entryOf(res: Call): Promise<Record<string, any> | undefined> {
  const traceId = res.headers.get('x-trace-id');
  const log = await admin.call('GET', '/admin/v1/audit-log?limit=200');
  expect(log.status).toBe(200);
  return (log.body as Array<Record<string, any>>).find((e) => e.traceId === traceId);
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('operator tokens', () => {
  it('creates a token shown once, lists it without the token, stores only its hash, and revokes it idempotently', async () => {
    const created = await mint({ name: ' on-call SRE ', scopes: ['admin:read', 'admin:write'] });
    expect(Object.keys(created).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'name', 'scopes', 'token']);
    expect(created).toMatchObject({ name: 'on-call SRE', scopes: ['admin:read', 'admin:write'], expiresAt: null });
    expect(created.token).toMatch(/^opr_[0-9A-Za-z]{49}$/);

    const list = await admin.call('GET', '/admin/v1/operator-tokens');
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).not.toContain(created.token);
    expect(JSON.stringify(list.body)).not.toContain(created.token.slice(4, 40));
    const entry = (list.body as Array<Record<string, unknown>>).find((t) => t.id === created.id);
    expect(entry).toEqual({
      id: created.id,
      name: 'on-call SRE',
      scopes: ['admin:read', 'admin:write'],
      prefix: created.token.slice(0, 8),
      lastFour: created.token.slice(-4),
      createdAt: created.createdAt,
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
    });

    // At rest: the SHA-256 of the token, and the token nowhere in the row.
    const row = await database.db.selectFrom('operator_tokens').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(createHash('sha256').update(created.token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(created.token.slice(4, 40));

    expect((await as(created.token, 'GET', '/admin/v1/organizations')).status).toBe(200);
    await eventually(async () => {
      const used = (await admin.call('GET', '/admin/v1/operator-tokens')).body.find((t: { id: string }) => t.id === created.id);
      expect(used.lastUsedAt).toEqual(expect.any(String));
    });

    expect((await admin.call('DELETE', `/admin/v1/operator-tokens/${created.id}`)).status).toBe(204);
    const revoked = (await admin.call('GET', '/admin/v1/operator-tokens')).body.find((t: { id: string }) => t.id === created.id);
    expect(revoked.revokedAt).toEqual(expect.any(String));
    expect((await admin.call('DELETE', `/admin/v1/operator-tokens/${created.id}`)).status).toBe(204);
    const again = (await admin.call('GET', '/admin/v1/operator-tokens')).body.find((t: { id: string }) => t.id === created.id);
    expect(again.revokedAt).toBe(revoked.revokedAt);
    expectProblem(await admin.call('DELETE', '/admin/v1/operator-tokens/00000000-0000-4000-8000-000000000000'), 404);
    expectProblem(await admin.call('DELETE', '/admin/v1/operator-tokens/not-a-uuid'), 404);
  });

  it('validates the body with a 422 errors map', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ scopes: ['admin:read'] }, 'name'],
      [{ name: 'x' }, 'scopes'],
      [{ name: 'x', scopes: [] }, 'scopes'],
      [{ name: 'x', scopes: ['read'] }, 'scopes.0'],
      [{ name: 'x', scopes: ['admin:read', 'admin:read'] }, 'scopes'],
      [{ name: 'x', scopes: ['admin:read'], expiresAt: 'tomorrow' }, 'expiresAt'],
      [{ name: 'x', scopes: ['admin:read'], expiresAt: new Date(Date.now() - 1000).toISOString() }, 'expiresAt'],
      [{ name: 'x', scopes: ['admin:read'], owner: 'me' }, 'owner'],
    ];
    for (const [body, field] of cases) {
      const res = await admin.call('POST', '/admin/v1/operator-tokens', body);
      expect(Object.keys(expectProblem(res, 422).errors), JSON.stringify(body)).toEqual([field]);
    }
  });

  it('authenticates on /admin/v1 like ADMIN_TOKEN, never on /api/v1; an API key never on /admin/v1', async () => {
    const writer = await mint({ name: 'writer', scopes: ['admin:write'] });
    const created = await as(writer.token, 'POST', '/admin/v1/organizations', { name: 'Made by a token' });
    expect(created.status).toBe(201);
    for (const path of ['/api/v1/me', '/api/v1/campaigns']) {
      for (const headers of [bearer(writer.token), { 'x-api-key': writer.token }]) {
        expectProblem(await call(gw.url, 'GET', path, { headers }), 401);
      }
    }
    const { key } = await admin.createKey(created.body.id, ['read', 'write', 'webhooks']);
    for (const headers of [bearer(key), { 'x-api-key': key }]) expectProblem(await call(gw.url, 'GET', '/admin/v1/organizations', { headers }), 401);
    // A token of the right shape that was never issued, and one with a bad checksum.
    const forged = `opr_${'A'.repeat(49)}`;
    const res = await as(forged, 'GET', '/admin/v1/organizations');
    expectProblem(res, 401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="preflight-admin"');
    expectProblem(await as(`${writer.token.slice(0, -1)}${writer.token.endsWith('A') ? 'B' : 'A'}`, 'GET', '/admin/v1/organizations'), 401);
  });

  it('gives an admin:read token 403 on every admin write, and reads', async () => {
    const reader = await mint({ name: 'auditor', scopes: ['admin:read'] });
    const org = await admin.createOrg('Read-only target');
    expect((await as(reader.token, 'GET', '/admin/v1/organizations')).status).toBe(200);
    expect((await as(reader.token, 'HEAD', '/admin/v1/operator-tokens')).status).toBe(200);
    expect((await as(reader.token, 'GET', '/admin/v1/audit-log')).status).toBe(200);
    expect((await as(reader.token, 'GET', `/admin/v1/campaigns/${campaignId}`)).status).toBe(200);
    const writes: Array<[string, string, unknown]> = [
      ['POST', '/admin/v1/organizations', { name: 'x' }],
      ['POST', `/admin/v1/organizations/${org.id}/api-keys`, { name: 'k', scopes: [] }],
      ['POST', '/admin/v1/operator-tokens', { name: 'escalate', scopes: ['admin:write'] }],
      ['DELETE', `/admin/v1/operator-tokens/${reader.id}`, undefined],
      ['POST', `/admin/v1/organizations/${org.id}/sites`, { name: 'Shop' }],
      ['PUT', `/admin/v1/campaigns/${campaignId}/policy`, {}],
      ['PATCH', `/admin/v1/integrations/${campaignId}`, {}],
      ['DELETE', `/admin/v1/integrations/${campaignId}`, undefined],
    ];
    for (const [method, path, body] of writes) {
      const res = await as(reader.token, method, path, body);
      const problem = expectProblem(res, 403, 'Access denied.');
      expect(problem.type).toBe('https://preflight.dev/problems/forbidden');
      expect(problem.requiredScope).toBe('admin:write');
      expect(res.headers.get('ratelimit-policy')).toMatch(/^"admin";/);
    }
    // Nothing reached the service, and the token is still there.
    expect(campaign.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    const list = (await admin.call('GET', '/admin/v1/operator-tokens')).body as Array<{ id: string; revokedAt: string | null }>;
    expect(list.find((t) => t.id === reader.id)?.revokedAt).toBeNull();
  });

  it('refuses an expired token with 401, and never mints a token that outlives the caller', async () => {
    const short = await mint({ name: 'short', scopes: ['admin:write'], expiresAt: new Date(Date.now() + 1_500).toISOString() });
    expect(short.expiresAt).toEqual(expect.any(String));
    expect((await as(short.token, 'GET', '/admin/v1/organizations')).status).toBe(200);
    const longer = await as(short.token, 'POST', '/admin/v1/operator-tokens', { name: 'longer', scopes: ['admin:read'] });
    expect(Object.keys(expectProblem(longer, 422).errors)).toEqual(['expiresAt']);
    const within = await as(short.token, 'POST', '/admin/v1/operator-tokens', { name: 'within', scopes: ['admin:read'], expiresAt: short.expiresAt });
    expect(within.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(short.expiresAt!) - Date.now() + 50));
    for (const base of [gw.url, other.url]) {
      const res = await as(short.token, 'GET', '/admin/v1/organizations', undefined, base);
      expect(expectProblem(res, 401).detail).toBe('The operator token has expired.');
    }
  });

  it('refuses a revoked token on the very next request, on another replica that had it cached', async () => {
    const token = await mint({ name: 'to revoke', scopes: ['admin:read'] });
    // `other` reads the token and caches it in the shared Redis.
    expect((await as(token.token, 'GET', '/admin/v1/organizations', undefined, other.url)).status).toBe(200);
    expect((await as(token.token, 'GET', '/admin/v1/organizations', undefined, other.url)).status).toBe(200);
    expect((await admin.call('DELETE', `/admin/v1/operator-tokens/${token.id}`)).status).toBe(204); // through `gw`
    for (const base of [other.url, gw.url]) {
      const res = await as(token.token, 'GET', '/admin/v1/organizations', undefined, base);
      expect(expectProblem(res, 401).detail).toBe('The operator token has been revoked.');
    }
  });

  it('lets an operator token revoke itself', async () => {
    const token = await mint({ name: 'self', scopes: ['admin:write'] });
    expect((await as(token.token, 'DELETE', `/admin/v1/operator-tokens/${token.id}`)).status).toBe(204);
    expectProblem(await as(token.token, 'GET', '/admin/v1/operator-tokens'), 401);
  });
});

describe('the audit log', () => {
  it('records a write through a gateway endpoint with the operator token as actor, after the answer', async () => {
    const writer = await mint({ name: 'release bot', scopes: ['admin:read', 'admin:write'] });
    const res = await as(writer.token, 'POST', '/admin/v1/organizations', { name: 'Audited' });
    expect(res.status).toBe(201);
    await eventually(async () => {
      const entry = await entryOf(res);
      expect(entry).toEqual({
        at: expect.any(String),
        actor: { kind: 'operator-token', id: writer.id, name: 'release bot' },
        method: 'POST',
        path: '/admin/v1/organizations',
        status: 201,
        orgId: res.body.id,
        traceId: res.headers.get('x-trace-id'),
      });
      expect(new Date(entry!.at).toISOString()).toBe(entry!.at);
    });
  });

  it('records forwarded writes once the service answered 2xx, with the route\'s orgId, and the bootstrap actor', async () => {
    const org = await admin.createOrg('Forwarded');
    campaign.status = 201;
    const site = await admin.call('POST', `/admin/v1/organizations/${org.id.toUpperCase()}/sites?x=1`, { name: 'Shop' });
    expect(site.status).toBe(201);
    campaign.status = 200;
    const status = await admin.call('POST', `/admin/v1/campaigns/${campaignId}/status`, { to: 'Active' });
    expect(status.status).toBe(200);
    await eventually(async () => {
      expect(await entryOf(site)).toMatchObject({
        actor: { kind: 'bootstrap', id: null, name: null },
        method: 'POST',
        path: `/admin/v1/organizations/${org.id.toUpperCase()}/sites`,
        status: 201,
        orgId: org.id,
      });
      expect(await entryOf(status)).toMatchObject({ method: 'POST', path: `/admin/v1/campaigns/${campaignId}/status`, status: 200, orgId: null });
    });
  });

  it('records no reads, no failed writes, no refused writes and no idempotent replays', async () => {
    const reader = await mint({ name: 'reader', scopes: ['admin:read'] });
    const org = await admin.createOrg('Quiet');
    const calls: Call[] = [];
    calls.push(await admin.call('GET', '/admin/v1/organizations'));
    calls.push(await admin.call('GET', `/admin/v1/campaigns/${campaignId}`));
    calls.push(await as(reader.token, 'POST', '/admin/v1/organizations', { name: 'refused' }));
    campaign.status = 422;
    calls.push(await admin.call('POST', `/admin/v1/campaigns/${campaignId}/status`, { to: 'Nowhere' }));
    campaign.status = 200;
    calls.push(await admin.call('POST', '/admin/v1/organizations', { name: '' }));
    const idem = { ...bearer(iso.adminToken), 'idempotency-key': `audit-${org.id}` };
    const first = await call(gw.url, 'POST', `/admin/v1/organizations/${org.id}/sites`, { headers: idem, body: { name: 'Once' } });
    const replay = await call(gw.url, 'POST', `/admin/v1/organizations/${org.id}/sites`, { headers: idem, body: { name: 'Once' } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    calls.push(replay);
    await eventually(async () => expect(await entryOf(first)).toBeDefined());
    await settle();
    for (const res of calls) expect(await entryOf(res), `${res.status} ${JSON.stringify(res.body)}`).toBeUndefined();
  });

  it('pages newest first by limit and before', async () => {
    const made: Call[] = [];
    for (let i = 0; i < 3; i++) made.push(await admin.call('POST', '/admin/v1/organizations', { name: `Paged ${i}` }));
    await eventually(async () => {
      for (const res of made) expect(await entryOf(res)).toBeDefined();
    });
    const page = await admin.call('GET', '/admin/v1/audit-log?limit=2');
    expect(page.status).toBe(200);
    expect(page.body.map((e: { traceId: string }) => e.traceId)).toEqual([made[2]!, made[1]!].map((r) => r.headers.get('x-trace-id')));
    const next = await admin.call('GET', `/admin/v1/audit-log?limit=2&before=${encodeURIComponent(page.body[1].at)}`);
    expect(next.body[0].traceId).toBe(made[0]!.headers.get('x-trace-id'));
    for (const e of next.body) expect(Date.parse(e.at)).toBeLessThan(Date.parse(page.body[1].at));
    expect((await admin.call('GET', '/admin/v1/audit-log')).body.length).toBeLessThanOrEqual(50);
    const all = await admin.call('GET', '/admin/v1/audit-log?limit=200&before=2000-01-01T00:00:00Z');
    expect(all.body).toEqual([]);
  });

  it('answers a bad limit or before with 400 and an errors map', async () => {
    for (const query of ['limit=0', 'limit=201', 'limit=abc', 'limit=1.5', 'limit=-1', 'limit=1&limit=2']) {
      expect(Object.keys(expectProblem(await admin.call('GET', `/admin/v1/audit-log?${query}`), 400).errors), query).toEqual(['limit']);
    }
    for (const query of ['before=yesterday', 'before=2026-13-01T00:00:00Z', 'before=']) {
      expect(Object.keys(expectProblem(await admin.call('GET', `/admin/v1/audit-log?${query}`), 400).errors), query).toEqual(['before']);
    }
    expect((await admin.call('GET', '/admin/v1/audit-log?limit=200')).status).toBe(200);
  });

  it('is stored with an index for newest-first paging', async () => {
    const { rows } = await sql<{ indexdef: string }>`select indexdef from pg_indexes where schemaname = ${iso.schema} and tablename = 'audit_log'`.execute(database.db);
    expect(rows.map((r) => r.indexdef).join('\n')).toMatch(/\(at DESC, id DESC\)/);
  });
});

describe('rate limit per operator token', () => {
  it('gives each operator token its own bucket, the bootstrap token one more, with the RateLimit headers', async () => {
    const a = await mint({ name: 'a', scopes: ['admin:read'] }, limited.url, limitedIso.adminToken);
    const b = await mint({ name: 'b', scopes: ['admin:read'] }, limited.url, limitedIso.adminToken);
    for (let i = 1; i <= 3; i++) {
      const res = await as(a.token, 'GET', '/admin/v1/organizations', undefined, limited.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe('"admin";q=3;w=60');
      expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^"admin";r=${3 - i};t=\\d+$`));
      expect(res.headers.get('x-ratelimit-limit')).toBe('3');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(3 - i));
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    }
    const refused = await as(a.token, 'GET', '/admin/v1/organizations', undefined, limited.url);
    expect(expectProblem(refused, 429, 'Too many requests.').detail).toMatch(/^Rate limit of 3 requests per 60 seconds exceeded/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const fresh = await as(b.token, 'GET', '/admin/v1/organizations', undefined, limited.url);
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe('2');
    // The bootstrap token has spent two (the mints) of its own bucket.
    const boot = await as(limitedIso.adminToken, 'GET', '/admin/v1/organizations', undefined, limited.url);
    expect(boot.headers.get('x-ratelimit-remaining')).toBe('0');
  });
});

describe('audit log storage', () => {
  it('pages without skipping entries that share a millisecond at a page boundary', async () => {
    const at = new Date(Date.UTC(2001, 0, 1, 12, 0, 0, 123));
    const insert = (path: string, when: Date) =>
      sql`insert into audit_log (at, actor_kind, method, path, status) values (${when}, 'bootstrap', 'POST', ${path}, 201)`.execute(database.db);
    // Pages of 3: the first would end inside the millisecond of /same-ms/1..3, so it stops before it.
    await insert('/same-ms/newer', new Date(at.getTime() + 1));
    for (const i of [1, 2, 3]) await insert(`/same-ms/${i}`, at);
    await insert('/same-ms/older', new Date(at.getTime() - 1));
    const before = new Date(at.getTime() + 1000).toISOString();
    const seen: string[] = [];
    let cursor = before;
    for (let pages = 0; pages < 10; pages++) {
      const page = await admin.call('GET', `/admin/v1/audit-log?limit=3&before=${encodeURIComponent(cursor)}`);
      expect(page.status).toBe(200);
      const mine = (page.body as Array<{ path: string; at: string }>).filter((e) => e.path.startsWith('/same-ms/'));
      if (mine.length === 0) break;
      seen.push(...mine.map((e) => e.path));
      cursor = page.body.at(-1).at;
    }
    expect(seen).toEqual(['/same-ms/newer', '/same-ms/3', '/same-ms/2', '/same-ms/1', '/same-ms/older']);
  });

  it('deletes entries past the retention, keeping the rest', async () => {
    const old = new Date(Date.now() - 400 * 86_400_000);
    await sql`insert into audit_log (at, actor_kind, method, path, status) values (${old}, 'bootstrap', 'POST', '/retention/old', 201)`.execute(database.db);
    await sql`insert into audit_log (at, actor_kind, method, path, status) values (now(), 'bootstrap', 'POST', '/retention/new', 201)`.execute(database.db);
    expect(await deleteAuditEntriesOlderThan(database.db, 365)).toBeGreaterThanOrEqual(1);
    const paths = (await database.db.selectFrom('audit_log').select('path').where('path', 'like', '/retention/%').execute()).map((r) => r.path);
    expect(paths).toEqual(['/retention/new']);
  });

  it('logs an entry it could not store, whole, and counts it', async () => {
    const errors: Array<{ line: Record<string, unknown>; message: string }> = [];
    const logger = { error: (line: Record<string, unknown>, message: string) => errors.push({ line, message }), warn: () => undefined, info: () => undefined } as unknown as Logger;
    const broken = createDatabase<IdentityDb>({ url: TEST_DATABASE_URL, schema: `${iso.schema}_missing`, poolMax: 1, applicationName: 'operator-tokens-test' });
    const metrics = gatewayMetrics(new Registry());
    const recorder = new AuditRecorder(broken.db, logger, metrics);
    const entry = { at: new Date(), actor: { kind: 'bootstrap' as const, id: null, name: null }, method: 'POST', path: '/lost', status: 201, orgId: null, traceId: 'f'.repeat(32) };
    recorder.record(entry);
    await recorder.flush();
    await broken.close();
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/could not store an audit log entry/);
    expect(errors[0]!.line.audit).toEqual(entry);
    expect((await metrics.auditLogWriteFailures.get()).values[0]?.value).toBe(1);
  });
});
