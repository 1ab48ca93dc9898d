import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublicIssueSchema, PublicIssueSummarySchema } from '@preflight/contract';
import { asAdmin, asKey, expectProblem, startHarness, type Harness, type StubCampaign } from './harness.ts';

let h: Harness;
const orgA = randomUUID();
const orgB = randomUUID();
const key = asKey(orgA, 'Release bot ✓');
const otherOrgKey = asKey(orgB);
let campaign: StubCampaign;
let foreignCampaign: StubCampaign;

beforeAll(async () => {
  h = await startHarness();
  campaign = h.stub.add(orgA, { name: 'Checkout revamp', siteName: 'shop.example.com' });
  foreignCampaign = h.stub.add(orgB);
});
afterAll(() => h?.close());

const file = (body: unknown, campaignId = campaign.id, as = key) => h.call('POST', `/api/v1/campaigns/${campaignId}/issues`, { as, body });

describe('POST /api/v1/campaigns/:id/issues', () => {
  it('files an issue and points at it', async () => {
    const res = await file({ title: '  Pay button dead ', description: 'Nothing happens.', severity: 'High', type: 'Bug', pageUrl: 'https://shop.example.com/cart' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['id', 'seqNumber']);
    expect(res.body.seqNumber).toBeGreaterThanOrEqual(1);
    expect(res.headers.get('location')).toBe(`/api/v1/issues/${res.body.id}`);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);

    const detail = await h.call('GET', res.headers.get('location')!, { as: key });
    expect(detail.status).toBe(200);
    expect(Object.keys(detail.body).sort()).toEqual(Object.keys(PublicIssueSchema.shape).sort());
    expect(PublicIssueSchema.parse(detail.body)).toBeTruthy();
    expect(detail.body).toMatchObject({
      id: res.body.id,
      seqNumber: res.body.seqNumber,
      campaignId: campaign.id,
      campaignName: 'Checkout revamp',
      siteId: campaign.siteId,
      siteName: 'shop.example.com',
      type: 'Bug',
      severity: 'High',
      status: 'New',
      title: 'Pay button dead',
      description: 'Nothing happens.',
      stepsToReproduce: null,
      expectedBehavior: null,
      actualBehavior: null,
      pageUrl: 'https://shop.example.com/cart',
      pageTitle: null,
      browserName: null,
      browserVersion: null,
      operatingSystem: null,
      deviceType: null,
      screenResolution: null,
      screenshotUrl: null,
      assigneeName: null,
      testerEmail: null,
      duplicateOfId: null,
      duplicateOfSeqNumber: null,
    });
    expect(detail.body.createdAt).toBe(detail.body.updatedAt);
    expect(detail.body.history).toEqual([{ from: null, to: 'New', reason: null, occurredAt: detail.body.createdAt }]);
  });

  it('needs only title, severity and type; the rest is null', async () => {
    const res = await file({ title: 'Typo', severity: 'Trivial', type: 'ContentError' });
    expect(res.status).toBe(201);
    const detail = await h.call('GET', `/api/v1/issues/${res.body.id}`, { as: key });
    expect(detail.body).toMatchObject({ description: null, pageUrl: null, title: 'Typo' });
  });

  it("records the reporter as the calling key's name", async () => {
    const res = await file({ title: 'Slow search', severity: 'Medium', type: 'PerformanceIssue' });
    const admin = await h.call('GET', `/admin/v1/issues/${res.body.id}`, { as: asAdmin });
    expect(admin.body.reporter).toBe('API key Release bot ✓');
  });

  it('numbers issues per campaign, one after the other', async () => {
    const other = h.stub.add(orgA);
    const first = await file({ title: 'One', severity: 'Low', type: 'Other' }, other.id);
    const second = await file({ title: 'Two', severity: 'Low', type: 'Other' }, other.id);
    expect([first.body.seqNumber, second.body.seqNumber]).toEqual([1, 2]);
  });

  it.each([
    ['title missing', { severity: 'High', type: 'Bug' }, 'title'],
    ['title blank', { title: '   ', severity: 'High', type: 'Bug' }, 'title'],
    ['title too long', { title: 'x'.repeat(201), severity: 'High', type: 'Bug' }, 'title'],
    ['severity missing', { title: 't', type: 'Bug' }, 'severity'],
    ['type missing', { title: 't', severity: 'High' }, 'type'],
    ['severity not in the enumeration', { title: 't', severity: 'Blocker', type: 'Bug' }, 'severity'],
    ['type not in the enumeration', { title: 't', severity: 'High', type: 'Feedback' }, 'type'],
    ['an unknown property', { title: 't', severity: 'High', type: 'Bug', stepsToReproduce: 'x' }, 'stepsToReproduce'],
    ['pageUrl not http(s)', { title: 't', severity: 'High', type: 'Bug', pageUrl: 'javascript:alert(1)' }, 'pageUrl'],
    ['pageUrl relative', { title: 't', severity: 'High', type: 'Bug', pageUrl: '/cart' }, 'pageUrl'],
  ])('refuses %s with 422 naming the field', async (_label, body, field) => {
    const problem = expectProblem(await file(body), 422);
    expect(Object.keys(problem.errors)).toEqual([field]);
    expect(problem.errors[field][0]).toEqual(expect.any(String));
  });

  it('refuses a missing body and a non-object body with 422', async () => {
    expectProblem(await h.call('POST', `/api/v1/campaigns/${campaign.id}/issues`, { as: key }), 422);
    expectProblem(await file([1, 2]), 422);
  });

  it('answers 404 for an unknown, a foreign and a malformed campaign id alike', async () => {
    const body = { title: 't', severity: 'High', type: 'Bug' };
    for (const id of [randomUUID(), foreignCampaign.id, 'not-a-uuid']) {
      const problem = expectProblem(await file(body, id), 404);
      expect(problem.detail).toBe(`No campaign with id '${id}' was found.`);
    }
  });
});

describe('GET /api/v1/campaigns/:id/issues', () => {
  it('lists summaries with every field present', async () => {
    const fresh = h.stub.add(orgA);
    await file({ title: 'Only one', severity: 'Critical', type: 'AccessibilityIssue' }, fresh.id);
    const res = await h.call('GET', `/api/v1/campaigns/${fresh.id}/issues`, { as: key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, pageSize: 50, total: 1, hasMore: false });
    expect(Object.keys(res.body.items[0]).sort()).toEqual(Object.keys(PublicIssueSummarySchema.shape).sort());
    expect(res.body.items[0]).toMatchObject({ seqNumber: 1, title: 'Only one', type: 'AccessibilityIssue', severity: 'Critical', status: 'New', assigneeName: null, pageUrl: null });
  });

  it('answers an empty page for a campaign without issues', async () => {
    const empty = h.stub.add(orgA);
    const res = await h.call('GET', `/api/v1/campaigns/${empty.id}/issues`, { as: key });
    expect(res.body).toEqual({ items: [], page: 1, pageSize: 50, total: 0, hasMore: false });
  });

  it('answers 404 for an unknown, a foreign and a malformed campaign id alike', async () => {
    for (const id of [randomUUID(), foreignCampaign.id, 'nope']) {
      expectProblem(await h.call('GET', `/api/v1/campaigns/${id}/issues`, { as: key }), 404);
    }
  });
});

describe('GET /api/v1/issues/:id', () => {
  it("answers 404 for an unknown, another organisation's and a malformed issue id alike", async () => {
    const theirs = await file({ title: 'Theirs', severity: 'Low', type: 'Bug' }, foreignCampaign.id, otherOrgKey);
    expect(theirs.status).toBe(201);
    expect((await h.call('GET', `/api/v1/issues/${theirs.body.id}`, { as: otherOrgKey })).status).toBe(200);
    for (const id of [randomUUID(), theirs.body.id, '12345']) {
      const problem = expectProblem(await h.call('GET', `/api/v1/issues/${id}`, { as: key }), 404);
      expect(problem.detail).toBe(`No issue with id '${id}' was found.`);
    }
  });
});

describe('callers', () => {
  it('refuses requests that carry no caller and the operator on public paths (401)', async () => {
    expectProblem(await h.call('GET', `/api/v1/campaigns/${campaign.id}/issues`), 401);
    expectProblem(await h.call('GET', `/api/v1/campaigns/${campaign.id}/issues`, { as: asAdmin }), 401);
    expectProblem(await h.call('POST', `/admin/v1/campaigns/${campaign.id}/issues`, { as: key, body: { title: 't', severity: 'High', type: 'Bug' } }), 403);
  });
});
