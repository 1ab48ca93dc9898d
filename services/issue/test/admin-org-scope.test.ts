import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ENDPOINTS } from '@preflight/contract';
import { notFound, problemType, type Caller } from '@preflight/http';
import { memberOf, OPERATOR, outboxTypes, schemaRows, type Reply } from '@preflight/testing';
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

function unknownId(what: string, id: string) {
  const e = notFound(what, id);
  return { type: problemType(e.code), title: e.title, status: e.status, detail: e.detail };
}

interface Case {
  route: string;
  call(f: Fixture, as: Caller): Promise<Reply>;
  missing(f: Fixture): [string, string];
  ok: number;
}

const CASES: Case[] = [
  { route: 'adminGetIssue', call: (f, as) => h.call('GET', `/admin/v1/issues/${f.issueId}`, { as }), missing: (f) => ['issue', f.issueId], ok: 200 },
  { route: 'adminListIssues', call: (f, as) => h.call('GET', `/admin/v1/campaigns/${f.campaignId}/issues`, { as }), missing: (f) => ['campaign', f.campaignId], ok: 200 },
  { route: 'adminCreateIssue', call: (f, as) => h.call('POST', `/admin/v1/campaigns/${f.campaignId}/issues`, { as, body: issueBody('Footer overlaps') }), missing: (f) => ['campaign', f.campaignId], ok: 201 },
  { route: 'adminSetAssignee', call: (f, as) => h.call('POST', `/admin/v1/issues/${f.issueId}/assignee`, { as, body: { assigneeName: 'Dana' } }), missing: (f) => ['issue', f.issueId], ok: 200 },
  {
    route: 'adminChangeIssueStatus',
    call: (f, as) => h.call('POST', `/admin/v1/issues/${f.issueId}/status`, { as, body: { to: 'Duplicate', duplicateOfId: f.otherIssueId, reason: 'Same menu' } }),
    missing: (f) => ['issue', f.issueId],
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
    const open = Object.entries(ADMIN_ENDPOINTS).filter(([, e]) => e.owner === 'issue' && 'members' in e);
    expect(CASES.map((c) => c.route).sort()).toEqual(open.map(([name]) => name).sort());
  });

  it('answers a member of another organisation as for an unknown id, on every route, and changes nothing', async () => {
    const f = await fixture();
    const before = await stateOf(f);
    const outsider = memberOf(orgB, 'Owner');
    for (const c of CASES) {
      const [what, id] = c.missing(f);
      expect({ route: c.route, ...expectProblem(await c.call(f, outsider), 404) }).toMatchObject({ route: c.route, ...unknownId(what, id) });
    }
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
    const member = memberOf(mine.orgId, 'Member');
    for (const c of CASES) {
      expect({ route: c.route, status: (await c.call(mine, member)).status }).toEqual({ route: c.route, status: c.ok });
      expect({ route: c.route, status: (await c.call(operators, OPERATOR)).status }).toEqual({ route: c.route, status: c.ok });
    }
    const detail = await h.call('GET', `/admin/v1/issues/${mine.issueId}`, { as: OPERATOR });
    expect(detail.body).toMatchObject({ status: 'Duplicate', duplicateOfId: mine.otherIssueId, assigneeName: 'Dana' });
    expect(detail.body.history.map((e: { to: string }) => e.to)).toEqual(['New', 'Duplicate']);
    const events = await outboxTypes(h.schema, mine.orgId);
    expect(events.filter((type) => type.endsWith('.IssueStatusChanged'))).toHaveLength(1);
    expect(events).toEqual(await outboxTypes(h.schema, operators.orgId));
  });
});
