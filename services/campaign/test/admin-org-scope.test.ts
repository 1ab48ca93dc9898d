import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ENDPOINTS } from '@preflight/contract';
import { notFound, problemType, type Caller } from '@preflight/http';
import { memberOf, OPERATOR, outboxTypes, schemaRows } from '@preflight/testing';
import { createCampaign, createSite, json, MISSING_ID, newOrgId, problem, startTestService, type TestService } from './harness.ts';

/*
 * Console members reach every admin route of this service through the gateway, confined to
 * their organisation: another organisation's site, campaign, signer or tester is answered
 * exactly like an unknown id, and nothing changes (issue 24).
 */

let svc: TestService;
let orgA: string;
let orgB: string;

beforeAll(async () => {
  svc = await startTestService('campaign_org_scope');
  orgA = newOrgId();
  orgB = newOrgId();
});
afterAll(() => svc.stop());

/** A campaign of an organisation with a task, a tester and two signers, made by the operator. */
interface Fixture {
  orgId: string;
  siteId: string;
  campaignId: string;
  taskId: string;
  testerId: string;
  signerIds: [string, string];
}

async function fixture(orgId: string = orgA): Promise<Fixture> {
  const siteId = (await createSite(svc, orgId, 'Scoped shop')).id;
  const campaignId = (await createCampaign(svc, siteId, 'Scoped launch')).id as string;
  const post = async (path: string, body: unknown) => json<{ id: string }>(await svc.post(`/admin/v1/campaigns/${campaignId}/${path}`, body, OPERATOR), 201);
  const task = await post('tasks', { title: 'Log in', required: true });
  const tester = await post('testers', { name: 'Sam', email: 'sam@example.com' });
  const ana = await post('signers', { name: 'Ana', email: 'ana@example.com' });
  const ben = await post('signers', { name: 'Ben', email: 'ben@example.com' });
  return { orgId, siteId, campaignId, taskId: task.id, testerId: tester.id, signerIds: [ana.id, ben.id] };
}

/** The problem a handler answers for an unknown id: the one another organisation's resource must get. */
function unknownId(what: string, id: string) {
  const e = notFound(what, id);
  return { type: problemType(e.code), title: e.title, status: e.status, detail: e.detail };
}

const reportVersion = async (f: Fixture) => (await json<{ version: number }>(await svc.get(`/admin/v1/campaigns/${f.campaignId}/report`, OPERATOR), 200)).version;

interface Case {
  /** The manifest entry. */
  route: string;
  call(f: Fixture, as: Caller): Promise<Response>;
  /** What an unknown id of this request is answered with: the resource and its id. */
  missing(f: Fixture): [string, string];
  ok: number;
}

// In an order in which each succeeds once on one fixture (stamps before the signer goes, ...).
const CASES: Case[] = [
  { route: 'adminGetCampaign', call: (f, as) => svc.get(`/admin/v1/campaigns/${f.campaignId}`, as), missing: (f) => ['campaign', f.campaignId], ok: 200 },
  { route: 'adminGetPolicy', call: (f, as) => svc.get(`/admin/v1/campaigns/${f.campaignId}/policy`, as), missing: (f) => ['campaign', f.campaignId], ok: 200 },
  {
    route: 'adminReplacePolicy',
    call: (f, as) => svc.put(`/admin/v1/campaigns/${f.campaignId}/policy`, { doNotLaunch: { minSeverity: 'Critical', maxOpen: 1 }, atRisk: { minSeverity: 'High', maxOpen: 3 } }, as),
    missing: (f) => ['campaign', f.campaignId],
    ok: 200,
  },
  { route: 'adminListSigners', call: (f, as) => svc.get(`/admin/v1/campaigns/${f.campaignId}/signers`, as), missing: (f) => ['campaign', f.campaignId], ok: 200 },
  {
    route: 'adminAddSigner',
    call: (f, as) => svc.post(`/admin/v1/campaigns/${f.campaignId}/signers`, { name: 'Cy', email: `${randomUUID()}@example.com` }, as),
    missing: (f) => ['campaign', f.campaignId],
    ok: 201,
  },
  { route: 'adminGetReport', call: (f, as) => svc.get(`/admin/v1/campaigns/${f.campaignId}/report`, as), missing: (f) => ['campaign', f.campaignId], ok: 200 },
  {
    route: 'adminAddStamp',
    call: async (f, as) => svc.post(`/admin/v1/campaigns/${f.campaignId}/report/stamps`, { signerId: f.signerIds[0], version: await reportVersion(f), decision: 'approve' }, as),
    missing: (f) => ['campaign', f.campaignId],
    ok: 201,
  },
  {
    route: 'adminAddWaiver',
    call: async (f, as) => svc.post(`/admin/v1/campaigns/${f.campaignId}/report/waivers`, { signerId: f.signerIds[1], version: await reportVersion(f), reason: 'Away' }, as),
    missing: (f) => ['campaign', f.campaignId],
    ok: 201,
  },
  { route: 'adminRemoveSigner', call: (f, as) => svc.delete(`/admin/v1/campaigns/${f.campaignId}/signers/${f.signerIds[0]}`, as), missing: (f) => ['campaign', f.campaignId], ok: 204 },
  { route: 'adminCreateTask', call: (f, as) => svc.post(`/admin/v1/campaigns/${f.campaignId}/tasks`, { title: 'Check out', required: false }, as), missing: (f) => ['campaign', f.campaignId], ok: 201 },
  {
    route: 'adminCreateTester',
    call: (f, as) => svc.post(`/admin/v1/campaigns/${f.campaignId}/testers`, { name: 'Kim', email: 'kim@example.com' }, as),
    missing: (f) => ['campaign', f.campaignId],
    ok: 201,
  },
  {
    route: 'adminCompleteTask',
    call: (f, as) => svc.post(`/admin/v1/campaign-testers/${f.testerId}/tasks/${f.taskId}/complete`, { verdict: 'Pass' }, as),
    missing: (f) => ['campaign tester', f.testerId],
    ok: 200,
  },
  { route: 'adminChangeCampaignStatus', call: (f, as) => svc.post(`/admin/v1/campaigns/${f.campaignId}/status`, { to: 'Active' }, as), missing: (f) => ['campaign', f.campaignId], ok: 200 },
  { route: 'adminCreateCampaign', call: (f, as) => svc.post(`/admin/v1/sites/${f.siteId}/campaigns`, { name: 'Another' }, as), missing: (f) => ['site', f.siteId], ok: 201 },
  { route: 'adminListCampaigns', call: (f, as) => svc.get(`/admin/v1/organizations/${f.orgId}/campaigns`, as), missing: (f) => ['organization', f.orgId], ok: 200 },
  { route: 'adminListSites', call: (f, as) => svc.get(`/admin/v1/organizations/${f.orgId}/sites`, as), missing: (f) => ['organization', f.orgId], ok: 200 },
  { route: 'adminCreateSite', call: (f, as) => svc.post(`/admin/v1/organizations/${f.orgId}/sites`, { name: 'Second shop' }, as), missing: (f) => ['organization', f.orgId], ok: 201 },
];

/** What the operator reads of organisation A, and every row of the service's schema. */
async function stateOf(f: Fixture) {
  const read = async (path: string) => json(await svc.get(path, OPERATOR), 200);
  return {
    campaign: await read(`/admin/v1/campaigns/${f.campaignId}`),
    policy: await read(`/admin/v1/campaigns/${f.campaignId}/policy`),
    signers: await read(`/admin/v1/campaigns/${f.campaignId}/signers`),
    report: await read(`/admin/v1/campaigns/${f.campaignId}/report`),
    campaigns: await read(`/admin/v1/organizations/${orgA}/campaigns`),
    sites: await read(`/admin/v1/organizations/${orgA}/sites`),
    rows: await schemaRows(svc.service.database.schema),
  };
}

describe('admin routes for console members', () => {
  it('covers every campaign route members may call (the manifest)', () => {
    const open = Object.entries(ADMIN_ENDPOINTS).filter(([, e]) => e.owner === 'campaign' && 'members' in e);
    expect(CASES.map((c) => c.route).sort()).toEqual(open.map(([name]) => name).sort());
  });

  it("answers a member of another organisation as for an unknown id, on every route, and changes nothing", async () => {
    const f = await fixture();
    const before = await stateOf(f);
    const outsider = memberOf(orgB, 'Owner');
    for (const c of CASES) {
      const [what, id] = c.missing(f);
      const answer = await problem(await c.call(f, outsider), 404);
      expect({ route: c.route, ...answer }).toMatchObject({ route: c.route, ...unknownId(what, id) });
    }
    expect(await stateOf(f)).toEqual(before);
  });

  it('answers an unknown id with the same problem', async () => {
    const outsider = memberOf(orgB);
    const unknown = await problem(await svc.get(`/admin/v1/campaigns/${MISSING_ID}`, outsider), 404);
    expect(unknown).toMatchObject(unknownId('campaign', MISSING_ID));
  });

  it('serves a member of the organisation and the operator on every route, with the same events', async () => {
    // Each in an organisation of its own, so the events each enqueued can be told apart.
    const mine = await fixture(newOrgId());
    const operators = await fixture(newOrgId());
    const member = memberOf(mine.orgId, 'Admin');
    for (const c of CASES) {
      expect({ route: c.route, status: (await c.call(mine, member)).status }).toEqual({ route: c.route, status: c.ok });
      expect({ route: c.route, status: (await c.call(operators, OPERATOR)).status }).toEqual({ route: c.route, status: c.ok });
    }
    // The member's changes are the campaign's like anyone's: the operator reads them back.
    expect(await json(await svc.get(`/admin/v1/campaigns/${mine.campaignId}`, OPERATOR), 200)).toMatchObject({ id: mine.campaignId, status: 'Active' });
    const signers = await json<Array<{ id: string }>>(await svc.get(`/admin/v1/campaigns/${mine.campaignId}/signers`, OPERATOR), 200);
    expect(signers.map((s) => s.id)).not.toContain(mine.signerIds[0]);
    expect(signers).toHaveLength(2);
    const schema = svc.service.database.schema;
    const events = await outboxTypes(schema, mine.orgId);
    expect(events.filter((type) => type.endsWith('.CampaignLaunched'))).toHaveLength(1);
    expect(events).toEqual(await outboxTypes(schema, operators.orgId));
  });

  it("lists a member's own organisation only", async () => {
    const own = await createSite(svc, orgB, 'B shop');
    const memberB = memberOf(orgB, 'Member');
    const sites = await json<Array<{ id: string }>>(await svc.get(`/admin/v1/organizations/${orgB}/sites`, memberB), 200);
    expect(sites.map((s) => s.id)).toEqual([own.id]);
  });
});
