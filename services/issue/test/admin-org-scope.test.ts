import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ENDPOINTS } from '@preflight/contract';
import { answersOf, memberOf, memberRoutes, OPERATOR, outboxTypes, schemaRows, withFreshIds, type ScopeCase } from '@preflight/testing';
import { expectProblem, startHarness, type Harness } from './harness.ts';

/*
 * Console members reach the admin issue routes through the gateway, confined to their
 * organisation: another organisation's campaign or issue is answered exactly like an unknown
 * id, and nothing changes (issue 24).
 */

let h: Harness;
const orgA = randomUUID();
const orgB = randomUUID();

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const issueBody = (title: string) => ({ title, description: 'The menu hides behind the hero.', severity: 'High', type: 'Bug', pageUrl: 'https://beta.example.com/' });

/** A campaign of an organisation with two issues, filed by the operator. */
interface Fixture {
  orgId: string;
  campaignId: string;
  issueId: string;
  otherIssueId: string;
}

async function fixture(orgId: string = orgA): Promise<Fixture> {
  const campaignId = h.stub.add(orgId).id;
  const file = async (title: string) => {
    const res = await h.call('POST', `/admin/v1/campaigns/${campaignId}/issues`, { as: OPERATOR, body: issueBody(title) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  };
  return { orgId, campaignId, issueId: await file('Menu hidden'), otherIssueId: await file('Menu hidden again') };
}

const CASES: Array<ScopeCase<Fixture>> = [
  { route: 'adminGetIssue', call: (f, as) => h.call('GET', `/admin/v1/issues/${f.issueId}`, { as }), ok: 200 },
  { route: 'adminListIssues', call: (f, as) => h.call('GET', `/admin/v1/campaigns/${f.campaignId}/issues`, { as }), ok: 200 },
  { route: 'adminCreateIssue', call: (f, as) => h.call('POST', `/admin/v1/campaigns/${f.campaignId}/issues`, { as, body: issueBody('Footer overlaps') }), ok: 201 },
  { route: 'adminSetAssignee', call: (f, as) => h.call('POST', `/admin/v1/issues/${f.issueId}/assignee`, { as, body: { assigneeName: 'Dana' } }), ok: 200 },
  {
    route: 'adminChangeIssueStatus',
    call: (f, as) => h.call('POST', `/admin/v1/issues/${f.issueId}/status`, { as, body: { to: 'Duplicate', duplicateOfId: f.otherIssueId, reason: 'Same menu' } }),
    ok: 200,
  },
];

/** What the operator reads of the fixture, and every row of the service's schema. */
async function stateOf(f: Fixture) {
  const read = async (path: string) => {
    const res = await h.call('GET', path, { as: OPERATOR });
    expect(res.status).toBe(200);
    return res.body;
  };
  return {
    issue: await read(`/admin/v1/issues/${f.issueId}`),
    other: await read(`/admin/v1/issues/${f.otherIssueId}`),
    list: await read(`/admin/v1/campaigns/${f.campaignId}/issues`),
    rows: await schemaRows(h.schema),
  };
}

describe('admin issue routes for console members', () => {
  it('covers every issue route members may call (the manifest)', () => {
    expect(CASES.map((c) => c.route).sort()).toEqual(memberRoutes(ADMIN_ENDPOINTS, 'issue'));
  });

  it('answers a member of another organisation exactly as for unknown ids, on every route, and changes nothing', async () => {
    const f = await fixture();
    const before = await stateOf(f);
    const outsider = memberOf(orgB, 'Owner');
    const answers = await answersOf(CASES, f, outsider);
    expect(answers.map((a) => [a.route, a.status, a.problem?.detail])).toEqual(CASES.map((c) => [c.route, 404, expect.stringMatching(/^No (issue|campaign) with id '<id>' was found\.$/)]));
    expect(answers).toEqual(await answersOf(CASES, withFreshIds(f), outsider));
    expect(await stateOf(f)).toEqual(before);
  });

  it("refuses a member's Duplicate of another organisation's issue like one of another campaign (422), changing nothing", async () => {
    const theirs = await fixture();
    const mine = await fixture(orgB);
    const before = await stateOf(mine);
    const res = await h.call('POST', `/admin/v1/issues/${mine.issueId}/status`, { as: memberOf(orgB, 'Member'), body: { to: 'Duplicate', duplicateOfId: theirs.issueId } });
    expect(expectProblem(res, 422).errors).toEqual({ duplicateOfId: ['Must name another issue of the same campaign.'] });
    expect(await stateOf(mine)).toEqual(before);
  });

  it('serves a member of the organisation and the operator on every route, with the same events', async () => {
    const mine = await fixture(randomUUID());
    const operators = await fixture(randomUUID());
    const served = CASES.map((c) => [c.route, c.ok]);
    expect((await answersOf(CASES, mine, memberOf(mine.orgId, 'Member'))).map((a) => [a.route, a.status])).toEqual(served);
    expect((await answersOf(CASES, operators, OPERATOR)).map((a) => [a.route, a.status])).toEqual(served);
    const detail = await h.call('GET', `/admin/v1/issues/${mine.issueId}`, { as: OPERATOR });
    expect(detail.body).toMatchObject({ status: 'Duplicate', duplicateOfId: mine.otherIssueId, assigneeName: 'Dana' });
    expect(detail.body.history.map((e: { to: string }) => e.to)).toEqual(['New', 'Duplicate']);
    const events = await outboxTypes(h.schema, mine.orgId);
    expect(events.filter((type) => type.endsWith('.IssueStatusChanged'))).toHaveLength(1);
    expect(events).toEqual(await outboxTypes(h.schema, operators.orgId));
  });
});
