import { beforeAll, describe, expect, inject, it } from 'vitest';
import { call, freshTenant } from '../support/client.ts';
import { expectProblem } from './problems.ts';

const sys = inject('system');
const SUMMARY_FIELDS = ['id', 'seqNumber', 'title', 'type', 'severity', 'status', 'assigneeName', 'pageUrl', 'createdAt'];
const DETAIL_FIELDS = [
  'id', 'seqNumber', 'campaignId', 'campaignName', 'siteId', 'siteName', 'type', 'severity', 'status', 'title', 'description',
  'stepsToReproduce', 'expectedBehavior', 'actualBehavior', 'pageUrl', 'pageTitle', 'browserName', 'browserVersion',
  'operatingSystem', 'deviceType', 'screenResolution', 'screenshotUrl', 'assigneeName', 'testerEmail', 'duplicateOfId',
  'duplicateOfSeqNumber', 'createdAt', 'updatedAt', 'history',
];
const CAMPAIGN_FIELDS = ['id', 'name', 'status', 'siteId', 'siteName', 'readinessLevel', 'gate', 'createdAt'];

type Tenant = Awaited<ReturnType<typeof freshTenant>>;
let t: Tenant;
let other: Tenant;

beforeAll(async () => {
  t = await freshTenant(sys, { all: ['read', 'write', 'webhooks'], read: ['read'], write: ['write'], hooks: ['webhooks'], none: [] });
  other = await freshTenant(sys);
});

const fileIssue = (campaignId: string, body: Record<string, unknown>, key = t.keys.all!.key) =>
  call(sys, 'POST', `/api/v1/campaigns/${campaignId}/issues`, { apiKey: key, body });

describe('GET /api/v1/me', () => {
  it('describes the calling key and its organisation, with either header', async () => {
    for (const auth of [{ apiKey: t.keys.all!.key }, { token: t.keys.all!.key }]) {
      const res = await call(sys, 'GET', '/api/v1/me', auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        organization: { id: t.org.id, name: t.org.name },
        key: { id: t.keys.all!.id, name: 'all-key', scopes: ['read', 'write', 'webhooks'] },
      });
    }
  });

  it('accepts a key without any scope', async () => {
    const res = await call(sys, 'GET', '/api/v1/me', { apiKey: t.keys.none!.key });
    expect(res.status).toBe(200);
    expect(res.body.key.scopes).toEqual([]);
  });
});

describe('authentication and scopes', () => {
  it('answers a missing key with 401', async () => {
    expectProblem(await call(sys, 'GET', '/api/v1/campaigns'), 401);
  });

  it('answers an unknown or malformed key with 401', async () => {
    const fake = t.keys.all!.key.slice(0, -4) + 'AAAA';
    expectProblem(await call(sys, 'GET', '/api/v1/campaigns', { apiKey: fake }), 401);
    expectProblem(await call(sys, 'GET', '/api/v1/campaigns', { apiKey: 'not-a-key' }), 401);
  });

  it('never lets the admin token in on /api/v1, nor a key on /admin/v1', async () => {
    expectProblem(await call(sys, 'GET', '/api/v1/me', { token: sys.adminToken }), 401);
    expectProblem(await call(sys, 'GET', '/admin/v1/organizations', { token: t.keys.all!.key }), 401);
  });

  it('answers a key without the endpoint scope with 403 Access denied.', async () => {
    const cases: Array<[string, string, string, unknown?]> = [
      [t.keys.write!.key, 'GET', '/api/v1/campaigns'],
      [t.keys.read!.key, 'POST', `/api/v1/campaigns/${t.campaign.id}/issues`, { title: 'x', severity: 'Low', type: 'Bug' }],
      [t.keys.hooks!.key, 'GET', `/api/v1/campaigns/${t.campaign.id}/issues`],
    ];
    for (const [key, method, path, body] of cases) {
      const problem = expectProblem(await call(sys, method, path, { apiKey: key, body }), 403);
      expect(problem.title).toBe('Access denied.');
      expect(problem.detail).toMatch(/scope/);
    }
  });

  it('stops a revoked key on the very next request', async () => {
    const key = await t.admin.createKey(t.org.id, ['read'], 'short-lived');
    expect((await call(sys, 'GET', '/api/v1/campaigns', { apiKey: key.key })).status).toBe(200);
    await t.admin.revokeKey(t.org.id, key.id);
    expectProblem(await call(sys, 'GET', '/api/v1/campaigns', { apiKey: key.key }), 401);
  });

  it('ignores identity headers smuggled in from outside', async () => {
    const res = await call(sys, 'GET', '/api/v1/campaigns', {
      apiKey: t.keys.read!.key,
      headers: { 'x-preflight-org-id': other.org.id, 'x-preflight-actor': 'admin' },
    });
    expect(res.status).toBe(200);
    expect(res.body.map((c: { id: string }) => c.id)).toEqual([t.campaign.id]);
  });
});

describe('GET /api/v1/campaigns', () => {
  it('lists only the organisation campaigns, newest first, with every field', async () => {
    const second = await t.admin.createCampaign(t.site.id, 'Second wave');
    const res = await call(sys, 'GET', '/api/v1/campaigns', { apiKey: t.keys.read!.key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.map((c: { id: string }) => c.id).slice(0, 2)).toEqual([second.id, t.campaign.id]);
    for (const campaign of res.body) {
      expect(Object.keys(campaign).sort()).toEqual([...CAMPAIGN_FIELDS].sort());
      expect(campaign.siteId).toBe(t.site.id);
      expect(campaign.siteName).toBe('Shop');
    }
  });

  it('filters by status and refuses an unknown status with 400', async () => {
    const scoped = await freshTenant(sys, { r: ['read'] });
    await scoped.admin.setCampaignStatus(scoped.campaign.id, 'Active');
    const draft = await scoped.admin.createCampaign(scoped.site.id, 'Still a draft');
    const active = await call(sys, 'GET', '/api/v1/campaigns?status=Active', { apiKey: scoped.keys.r!.key });
    expect(active.body.map((c: { id: string }) => c.id)).toEqual([scoped.campaign.id]);
    const drafts = await call(sys, 'GET', '/api/v1/campaigns?status=Draft', { apiKey: scoped.keys.r!.key });
    expect(drafts.body.map((c: { id: string }) => c.id)).toEqual([draft.id]);
    const bad = expectProblem(await call(sys, 'GET', '/api/v1/campaigns?status=Launched', { apiKey: scoped.keys.r!.key }), 400);
    expect(bad.errors).toHaveProperty('status');
  });

  it('offers text/json and text/plain as well as application/json', async () => {
    for (const accept of ['text/json', 'text/plain']) {
      const res = await call(sys, 'GET', '/api/v1/campaigns', { apiKey: t.keys.read!.key, headers: { accept } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(new RegExp(`^${accept}`));
      expect(Array.isArray(JSON.parse(res.text))).toBe(true);
    }
  });
});

describe('POST /api/v1/campaigns/{id}/issues', () => {
  it('files an issue with the next seqNumber, reported as the calling key', async () => {
    const tenant = await freshTenant(sys, { w: ['write', 'read'] });
    const first = await fileIssue(tenant.campaign.id, { title: 'Logo is pixelated', severity: 'Low', type: 'Bug' }, tenant.keys.w!.key);
    expect(first.status).toBe(201);
    expect(Object.keys(first.body).sort()).toEqual(['id', 'seqNumber']);
    expect(first.body.seqNumber).toBe(1);
    const second = await fileIssue(
      tenant.campaign.id,
      { title: 'Checkout fails', description: 'Card declined', severity: 'Critical', type: 'Bug', pageUrl: 'https://shop.example.com/pay' },
      tenant.keys.w!.key,
    );
    expect(second.body.seqNumber).toBe(2);

    const detail = await call(sys, 'GET', `/api/v1/issues/${second.body.id}`, { apiKey: tenant.keys.w!.key });
    expect(detail.status).toBe(200);
    expect(Object.keys(detail.body).sort()).toEqual([...DETAIL_FIELDS].sort());
    expect(detail.body).toMatchObject({
      id: second.body.id,
      seqNumber: 2,
      campaignId: tenant.campaign.id,
      campaignName: 'Launch',
      siteId: tenant.site.id,
      siteName: 'Shop',
      title: 'Checkout fails',
      description: 'Card declined',
      severity: 'Critical',
      type: 'Bug',
      status: 'New',
      pageUrl: 'https://shop.example.com/pay',
      pageTitle: null,
      assigneeName: null,
      testerEmail: null,
      duplicateOfId: null,
      duplicateOfSeqNumber: null,
    });
    expect(detail.body.history).toEqual([expect.objectContaining({ from: null, to: 'New' })]);

    const asOperator = await call(sys, 'GET', `/admin/v1/issues/${second.body.id}`, { token: sys.adminToken });
    expect(asOperator.body.reporter).toBe('API key w-key');
  });

  it('numbers 50 concurrent creates on one campaign 1..50 without gaps', async () => {
    const tenant = await freshTenant(sys, { w: ['write'] });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => fileIssue(tenant.campaign.id, { title: `Issue ${i}`, severity: 'Medium', type: 'Other' }, tenant.keys.w!.key)),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    expect(results.map((r) => r.body.seqNumber).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('rejects invalid bodies with 422 and a per-field errors map, creating nothing', async () => {
    const tenant = await freshTenant(sys, { rw: ['read', 'write'] });
    const bad = await fileIssue(tenant.campaign.id, { severity: 'Urgent', type: 'Bug', pageUrl: 'ftp://x', colour: 'red' }, tenant.keys.rw!.key);
    const problem = expectProblem(bad, 422);
    expect(Object.keys(problem.errors).sort()).toEqual(['colour', 'pageUrl', 'severity', 'title']);
    for (const messages of Object.values(problem.errors)) expect((messages as string[]).length).toBeGreaterThan(0);
    const list = await call(sys, 'GET', `/api/v1/campaigns/${tenant.campaign.id}/issues`, { apiKey: tenant.keys.rw!.key });
    expect(list.body.total).toBe(0);
  });

  it('answers malformed JSON with 400, other media types with 415 and oversized bodies with 413', async () => {
    const path = `/api/v1/campaigns/${t.campaign.id}/issues`;
    const key = t.keys.all!.key;
    expectProblem(await call(sys, 'POST', path, { apiKey: key, rawBody: '{"title":', headers: { 'content-type': 'application/json' } }), 400);
    expectProblem(await call(sys, 'POST', path, { apiKey: key, rawBody: 'title=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415);
    const huge = JSON.stringify({ title: 'x', severity: 'Low', type: 'Bug', description: 'y'.repeat(2 * 1024 * 1024) });
    expectProblem(await call(sys, 'POST', path, { apiKey: key, rawBody: huge, headers: { 'content-type': 'application/json' } }), 413);
  });

  it('accepts text/json and application/*+json request bodies', async () => {
    for (const type of ['text/json', 'application/problem+json']) {
      const res = await call(sys, 'POST', `/api/v1/campaigns/${t.campaign.id}/issues`, {
        apiKey: t.keys.all!.key,
        rawBody: JSON.stringify({ title: `Via ${type}`, severity: 'Low', type: 'Other' }),
        headers: { 'content-type': type },
      });
      expect(res.status, res.text).toBe(201);
    }
  });
});

describe('GET /api/v1/campaigns/{id}/issues', () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await freshTenant(sys, { r: ['read', 'write'] });
    const severities = ['Low', 'Critical', 'Medium', 'High', 'Trivial', 'Critical', 'Low'];
    for (const [i, severity] of severities.entries()) {
      await fileIssue(tenant.campaign.id, { title: `Issue ${i + 1}`, severity, type: 'Bug' }, tenant.keys.r!.key);
    }
  });

  it('pages most severe first, then by seqNumber, with total and hasMore', async () => {
    const seen: Array<{ seqNumber: number; severity: string }> = [];
    for (let page = 1; page <= 3; page++) {
      const res = await call(sys, 'GET', `/api/v1/campaigns/${tenant.campaign.id}/issues?page=${page}&pageSize=3`, { apiKey: tenant.keys.r!.key });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ page, pageSize: 3, total: 7, hasMore: page < 3 });
      for (const item of res.body.items) expect(Object.keys(item).sort()).toEqual([...SUMMARY_FIELDS].sort());
      seen.push(...res.body.items);
    }
    expect(seen.map((i) => `${i.severity}#${i.seqNumber}`)).toEqual([
      'Critical#2', 'Critical#6', 'High#4', 'Medium#3', 'Low#1', 'Low#7', 'Trivial#5',
    ]);
  });

  it('defaults to page 1 of 50 and filters by severity and status', async () => {
    const res = await call(sys, 'GET', `/api/v1/campaigns/${tenant.campaign.id}/issues?severity=Critical&status=New`, { apiKey: tenant.keys.r!.key });
    expect(res.body).toMatchObject({ page: 1, pageSize: 50, total: 2, hasMore: false });
    const none = await call(sys, 'GET', `/api/v1/campaigns/${tenant.campaign.id}/issues?status=Fixed`, { apiKey: tenant.keys.r!.key });
    expect(none.body).toMatchObject({ items: [], total: 0, hasMore: false });
  });

  it('refuses page and pageSize out of range with 400', async () => {
    for (const query of ['page=0', 'pageSize=0', 'pageSize=201', 'page=abc', 'severity=Blocker']) {
      const problem = expectProblem(await call(sys, 'GET', `/api/v1/campaigns/${tenant.campaign.id}/issues?${query}`, { apiKey: tenant.keys.r!.key }), 400);
      expect(Object.keys(problem.errors)).toHaveLength(1);
    }
    const max = await call(sys, 'GET', `/api/v1/campaigns/${tenant.campaign.id}/issues?pageSize=200`, { apiKey: tenant.keys.r!.key });
    expect(max.status).toBe(200);
  });

  it('moves an issue between the filters\' totals when its status changes, and answers a page past the end with the total', async () => {
    const own = await freshTenant(sys, { rw: ['read', 'write'] });
    const key = own.keys.rw!.key;
    const ids: string[] = [];
    for (const severity of ['High', 'Low', 'High']) ids.push((await fileIssue(own.campaign.id, { title: `Moving ${severity}`, severity, type: 'Bug' }, key)).body.id);
    const list = async (query: string) => (await call(sys, 'GET', `/api/v1/campaigns/${own.campaign.id}/issues?${query}`, { apiKey: key })).body;
    const moved = await call(sys, 'POST', `/admin/v1/issues/${ids[2]}/status`, { token: sys.adminToken, body: { to: 'InProgress' } });
    expect(moved.status).toBe(200);
    expect(await list('status=New')).toMatchObject({ total: 2, hasMore: false });
    expect((await list('status=InProgress&severity=High')).items.map((i: { id: string }) => i.id)).toEqual([ids[2]]);
    expect(await list('severity=High&page=2&pageSize=1')).toMatchObject({ total: 2, hasMore: false, items: [expect.objectContaining({ id: ids[2], status: 'InProgress' })] });
    expect(await list('page=4&pageSize=1')).toEqual({ items: [], page: 4, pageSize: 1, total: 3, hasMore: false });
  });
});

describe('tenant isolation and missing resources', () => {
  it('answers another organisation campaign or issue exactly like a missing one', async () => {
    const theirs = await fileIssue(other.campaign.id, { title: 'Theirs', severity: 'Low', type: 'Bug' }, other.keys.all!.key);
    const missing = '00000000-0000-4000-8000-000000000000';
    const key = t.keys.all!.key;
    const pairs: Array<[string, string, unknown?]> = [
      ['GET', `/api/v1/campaigns/{id}/issues`],
      ['POST', `/api/v1/campaigns/{id}/issues`, { title: 'x', severity: 'Low', type: 'Bug' }],
    ];
    for (const [method, template, body] of pairs) {
      const foreign = expectProblem(await call(sys, method, template.replace('{id}', other.campaign.id), { apiKey: key, body }), 404);
      const absent = expectProblem(await call(sys, method, template.replace('{id}', missing), { apiKey: key, body }), 404);
      expect(foreign.title).toBe(absent.title);
    }
    expectProblem(await call(sys, 'GET', `/api/v1/issues/${theirs.body.id}`, { apiKey: key }), 404);
    expectProblem(await call(sys, 'GET', `/api/v1/issues/${missing}`, { apiKey: key }), 404);
    const list = await call(sys, 'GET', '/api/v1/campaigns', { apiKey: key });
    expect(list.body.some((c: { id: string }) => c.id === other.campaign.id)).toBe(false);
  });

  it('answers malformed ids and unknown routes with 404 problems', async () => {
    expectProblem(await call(sys, 'GET', '/api/v1/issues/not-a-uuid', { apiKey: t.keys.all!.key }), 404);
    expectProblem(await call(sys, 'GET', '/api/v1/campaigns/123/issues', { apiKey: t.keys.all!.key }), 404);
    expectProblem(await call(sys, 'GET', '/api/v1/nothing-here', { apiKey: t.keys.all!.key }), 404);
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const res = await call(sys, 'DELETE', '/api/v1/campaigns', { apiKey: t.keys.all!.key });
    expectProblem(res, 405);
    expect(res.headers.get('allow')).toMatch(/GET/);
  });
});

describe('tracing', () => {
  it('honours an incoming traceparent end to end', async () => {
    const traceId = 'a3ce929d0e0e47364bf92f3577b34da6';
    const res = await call(sys, 'GET', '/api/v1/issues/00000000-0000-4000-8000-000000000000', {
      apiKey: t.keys.all!.key,
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    // The 404 is produced by the issue service, so the trace id made it across the hop.
    expect(expectProblem(res, 404).traceId).toBe(traceId);
    expect(res.headers.get('x-trace-id')).toBe(traceId);
  });
});
