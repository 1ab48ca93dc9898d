import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISSUE_SEVERITIES } from '@preflight/contract';
import { asAdmin, asKey, expectProblem, startHarness, type Harness, type StubCampaign } from './harness.ts';

let h: Harness;
const org = randomUUID();
const key = asKey(org);
let campaign: StubCampaign;
/** seqNumber → severity, in filing order: severities interleave so sorting has work to do. */
const filed: Array<{ seqNumber: number; severity: string; id: string }> = [];

beforeAll(async () => {
  h = await startHarness();
  campaign = h.stub.add(org);
  for (let i = 0; i < 23; i += 1) {
    const severity = ISSUE_SEVERITIES[(i * 3) % ISSUE_SEVERITIES.length]!;
    const res = await h.call('POST', `/api/v1/campaigns/${campaign.id}/issues`, { as: key, body: { title: `Issue ${i + 1}`, severity, type: 'Bug' } });
    filed.push({ seqNumber: res.body.seqNumber, severity, id: res.body.id });
  }
  // Two issues move on, for the status filter.
  for (const issue of filed.slice(0, 2)) {
    await h.call('POST', `/admin/v1/issues/${issue.id}/status`, { as: asAdmin, body: { to: 'Acknowledged' } });
  }
});
afterAll(() => h?.close());

const list = (query = '') => h.call('GET', `/api/v1/campaigns/${campaign.id}/issues${query}`, { as: key });
const rank = (severity: string) => ISSUE_SEVERITIES.indexOf(severity as (typeof ISSUE_SEVERITIES)[number]);
const expectedOrder = () =>
  [...filed].sort((a, b) => rank(a.severity) - rank(b.severity) || a.seqNumber - b.seqNumber).map((i) => i.seqNumber);

describe('issue list order and paging', () => {
  it('puts the most severe first, then the oldest', async () => {
    const res = await list();
    expect(res.body).toMatchObject({ page: 1, pageSize: 50, total: 23, hasMore: false });
    expect(res.body.items.map((i: { seqNumber: number }) => i.seqNumber)).toEqual(expectedOrder());
  });

  it('walks pages without overlap or gap', async () => {
    const seen: number[] = [];
    const pages = [];
    for (let page = 1; page <= 5; page += 1) {
      const res = await list(`?page=${page}&pageSize=5`);
      expect(res.status).toBe(200);
      pages.push({ page: res.body.page, pageSize: res.body.pageSize, total: res.body.total, hasMore: res.body.hasMore, count: res.body.items.length });
      seen.push(...res.body.items.map((i: { seqNumber: number }) => i.seqNumber));
    }
    expect(pages).toEqual([
      { page: 1, pageSize: 5, total: 23, hasMore: true, count: 5 },
      { page: 2, pageSize: 5, total: 23, hasMore: true, count: 5 },
      { page: 3, pageSize: 5, total: 23, hasMore: true, count: 5 },
      { page: 4, pageSize: 5, total: 23, hasMore: true, count: 5 },
      { page: 5, pageSize: 5, total: 23, hasMore: false, count: 3 },
    ]);
    expect(seen).toEqual(expectedOrder());
  });

  it('answers a page past the end with no items and the real total', async () => {
    const res = await list('?page=9&pageSize=10');
    expect(res.body).toEqual({ items: [], page: 9, pageSize: 10, total: 23, hasMore: false });
  });

  it('accepts the largest page size', async () => {
    expect((await list('?pageSize=200')).body).toMatchObject({ pageSize: 200, total: 23 });
  });
});

describe('issue list filters', () => {
  it('filters by severity', async () => {
    const res = await list('?severity=Critical');
    const critical = filed.filter((i) => i.severity === 'Critical').map((i) => i.seqNumber);
    expect(res.body.total).toBe(critical.length);
    expect(res.body.items.map((i: { seqNumber: number }) => i.seqNumber)).toEqual(critical);
  });

  it('filters by status, and by both', async () => {
    const acknowledged = await list('?status=Acknowledged');
    expect(acknowledged.body.items.map((i: { id: string }) => i.id).sort()).toEqual(filed.slice(0, 2).map((i) => i.id).sort());
    expect(acknowledged.body.total).toBe(2);

    const both = await list(`?status=New&severity=${filed[0]!.severity}`);
    const expected = filed.slice(2).filter((i) => i.severity === filed[0]!.severity);
    expect(both.body.total).toBe(expected.length);
  });

  it('shows the operator the same list on the admin path', async () => {
    const res = await h.call('GET', `/admin/v1/campaigns/${campaign.id}/issues?pageSize=7&page=2`, { as: asAdmin });
    expect(res.status).toBe(200);
    expect(res.body.items.map((i: { seqNumber: number }) => i.seqNumber)).toEqual(expectedOrder().slice(7, 14));
  });
});

describe('bad list queries', () => {
  it.each([
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=abc', 'page'],
    ['pageSize=0', 'pageSize'],
    ['pageSize=201', 'pageSize'],
    ['status=Nope', 'status'],
    ['severity=Blocker', 'severity'],
  ])('answers ?%s with 400 naming the parameter', async (query, field) => {
    const problem = expectProblem(await list(`?${query}`), 400);
    expect(Object.keys(problem.errors)).toEqual([field]);
  });
});
