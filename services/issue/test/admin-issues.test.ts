import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublicIssueSchema } from '@preflight/contract';
import { asAdmin, asKey, expectProblem, startHarness, type Harness, type StubCampaign } from './harness.ts';

let h: Harness;
const org = randomUUID();
let campaign: StubCampaign;

beforeAll(async () => {
  h = await startHarness();
  campaign = h.stub.add(org, { name: 'Beta', siteName: null, status: 'Draft' });
});
afterAll(() => h?.close());

const everyField = {
  title: 'Hero image overlaps menu',
  description: 'On narrow screens the hero covers the menu.',
  stepsToReproduce: '1. Open home\n2. Resize to 375px',
  expectedBehavior: 'Menu stays on top.',
  actualBehavior: 'Hero covers it.',
  severity: 'Medium',
  type: 'UxFeedback',
  pageUrl: 'https://beta.example.com/',
  pageTitle: 'Home',
  browserName: 'Safari',
  browserVersion: '17.4',
  operatingSystem: 'iOS 17',
  deviceType: 'Mobile',
  screenResolution: '375x812',
  screenshotUrl: 'https://cdn.example.com/shot.png',
  testerEmail: 'ana@testers.example',
};

const create = (body: unknown, campaignId = campaign.id) => h.call('POST', `/admin/v1/campaigns/${campaignId}/issues`, { as: asAdmin, body });

describe('POST /admin/v1/campaigns/:id/issues', () => {
  it('files an issue with every writable field, reported by the tester', async () => {
    const res = await create(everyField);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['id', 'seqNumber']);
    expect(res.headers.get('location')).toBe(`/admin/v1/issues/${res.body.id}`);

    const detail = await h.call('GET', `/admin/v1/issues/${res.body.id}`, { as: asAdmin });
    expect(detail.status).toBe(200);
    expect(Object.keys(detail.body).sort()).toEqual([...Object.keys(PublicIssueSchema.shape), 'reporter'].sort());
    const { severity, type, ...text } = everyField;
    expect(detail.body).toMatchObject({
      ...text,
      severity,
      type,
      status: 'New',
      campaignId: campaign.id,
      campaignName: 'Beta',
      siteId: campaign.siteId,
      siteName: null,
      assigneeName: null,
      duplicateOfId: null,
      duplicateOfSeqNumber: null,
      reporter: 'ana@testers.example',
      history: [{ from: null, to: 'New', reason: null, occurredAt: detail.body.createdAt }],
    });

    // The organisation's own key reads the same issue, without the reporter.
    const viaKey = await h.call('GET', `/api/v1/issues/${res.body.id}`, { as: asKey(org) });
    const { reporter: _reporter, ...publicPart } = detail.body;
    expect(viaKey.body).toEqual(publicPart);
  });

  it("records 'Dashboard' as reporter when no tester is named", async () => {
    const res = await create({ title: 'No tester', severity: 'Low', type: 'Other', testerEmail: null });
    const detail = await h.call('GET', `/admin/v1/issues/${res.body.id}`, { as: asAdmin });
    expect(detail.body).toMatchObject({ reporter: 'Dashboard', testerEmail: null, browserName: null });
  });

  it.each([
    ['title missing', { severity: 'High', type: 'Bug' }, 'title'],
    ['severity not in the enumeration', { title: 't', severity: 'Urgent', type: 'Bug' }, 'severity'],
    ['a bad screenshotUrl', { title: 't', severity: 'High', type: 'Bug', screenshotUrl: 'ftp://x/y.png' }, 'screenshotUrl'],
    ['a bad testerEmail', { title: 't', severity: 'High', type: 'Bug', testerEmail: 'not-an-email' }, 'testerEmail'],
    ['too long a browserName', { title: 't', severity: 'High', type: 'Bug', browserName: 'b'.repeat(201) }, 'browserName'],
    ['a number for text', { title: 't', severity: 'High', type: 'Bug', pageTitle: 5 }, 'pageTitle'],
    ['an unknown property', { title: 't', severity: 'High', type: 'Bug', assigneeName: 'Bo' }, 'assigneeName'],
  ])('refuses %s with 422 naming the field', async (_label, body, field) => {
    const problem = expectProblem(await create(body), 422);
    expect(Object.keys(problem.errors)).toEqual([field]);
  });

  it('answers 404 for an unknown and a malformed campaign id', async () => {
    for (const id of [randomUUID(), 'x']) expectProblem(await create({ title: 't', severity: 'High', type: 'Bug' }, id), 404);
  });
});

describe('the operator sees every organisation', () => {
  it('lists and reads issues of any organisation', async () => {
    const other = h.stub.add(randomUUID());
    const filed = await h.call('POST', `/api/v1/campaigns/${other.id}/issues`, { as: asKey(other.orgId), body: { title: 'Elsewhere', severity: 'High', type: 'Bug' } });
    const list = await h.call('GET', `/admin/v1/campaigns/${other.id}/issues`, { as: asAdmin });
    expect(list.body.items.map((i: { id: string }) => i.id)).toEqual([filed.body.id]);
    const detail = await h.call('GET', `/admin/v1/issues/${filed.body.id}`, { as: asAdmin });
    expect(detail.body).toMatchObject({ title: 'Elsewhere', reporter: 'API key CI pipeline' });
  });
});

describe('admin 404s', () => {
  it('answers 404 for unknown and malformed ids on every admin endpoint', async () => {
    for (const id of [randomUUID(), 'not-a-uuid']) {
      expectProblem(await h.call('GET', `/admin/v1/campaigns/${id}/issues`, { as: asAdmin }), 404);
      expectProblem(await h.call('GET', `/admin/v1/issues/${id}`, { as: asAdmin }), 404);
      expectProblem(await h.call('POST', `/admin/v1/issues/${id}/status`, { as: asAdmin, body: { to: 'Acknowledged' } }), 404);
      expectProblem(await h.call('POST', `/admin/v1/issues/${id}/assignee`, { as: asAdmin, body: { assigneeName: 'Bo' } }), 404);
    }
  });

  it('refuses API keys on admin paths with 403', async () => {
    const key = asKey(org);
    const issue = await create({ title: 't', severity: 'High', type: 'Bug' });
    expectProblem(await h.call('GET', `/admin/v1/campaigns/${campaign.id}/issues`, { as: key }), 403);
    expectProblem(await h.call('GET', `/admin/v1/issues/${issue.body.id}`, { as: key }), 403);
    expectProblem(await h.call('POST', `/admin/v1/issues/${issue.body.id}/status`, { as: key, body: { to: 'Acknowledged' } }), 403);
    expectProblem(await h.call('POST', `/admin/v1/issues/${issue.body.id}/assignee`, { as: key, body: { assigneeName: 'Bo' } }), 403);
  });
});
