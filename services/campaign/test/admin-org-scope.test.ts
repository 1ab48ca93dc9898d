import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ENDPOINTS } from '@preflight/contract';
import { answersOf, memberOf, memberRoutes, OPERATOR, outboxTypes, schemaRows, serviceCall, withFreshIds, type ScopeCase } from '@preflight/testing';
import { createCampaign, createSite, json, newOrgId, startTestService, type TestService } from './harness.ts';

/*
 * Console members reach every admin route of this service through the gateway, confined to
 * their organisation: another organisation's site, campaign, signer or tester is answered
 * exactly like an unknown id, and nothing changes (issue 24).
 */

let svc: TestService;
let call: ReturnType<typeof serviceCall>;
let orgA: string;
let orgB: string;

beforeAll(async () => {
  svc = await startTestService('campaign_org_scope');
  call = serviceCall('campaign', () => svc.service.url);
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
  /** The report's current version (no issue changes it here). */
  version: number;
}

async function fixture(orgId: string = orgA): Promise<Fixture> {
  const siteId = (await createSite(svc, orgId, 'Scoped shop')).id;
  const campaignId = (await createCampaign(svc, siteId, 'Scoped launch')).id as string;
  const post = async (path: string, body: unknown) => json<{ id: string }>(await svc.post(`/admin/v1/campaigns/${campaignId}/${path}`, body, OPERATOR), 201);
  const task = await post('tasks', { title: 'Log in', required: true });
  const tester = await post('testers', { name: 'Sam', email: 'sam@example.com' });
  const ana = await post('signers', { name: 'Ana', email: 'ana@example.com' });
  const ben = await post('signers', { name: 'Ben', email: 'ben@example.com' });
  const { version } = await json<{ version: number }>(await svc.get(`/admin/v1/campaigns/${campaignId}/report`, OPERATOR), 200);
  return { orgId, siteId, campaignId, taskId: task.id, testerId: tester.id, signerIds: [ana.id, ben.id], version };
}

const campaign = (f: Fixture) => `/admin/v1/campaigns/${f.campaignId}`;

// In an order in which each succeeds once on one fixture (stamps before the signer goes, ...).
const CASES: Array<ScopeCase<Fixture>> = [
  { route: 'adminGetCampaign', call: (f, as) => call('GET', campaign(f), { as }), ok: 200 },
  { route: 'adminGetPolicy', call: (f, as) => call('GET', `${campaign(f)}/policy`, { as }), ok: 200 },
  {
    route: 'adminReplacePolicy',
    call: (f, as) => call('PUT', `${campaign(f)}/policy`, { as, body: { doNotLaunch: { minSeverity: 'Critical', maxOpen: 1 }, atRisk: { minSeverity: 'High', maxOpen: 3 } } }),
    ok: 200,
  },
  { route: 'adminListSigners', call: (f, as) => call('GET', `${campaign(f)}/signers`, { as }), ok: 200 },
  { route: 'adminAddSigner', call: (f, as) => call('POST', `${campaign(f)}/signers`, { as, body: { name: 'Cy', email: `${randomUUID()}@example.com` } }), ok: 201 },
  { route: 'adminGetReport', call: (f, as) => call('GET', `${campaign(f)}/report`, { as }), ok: 200 },
  { route: 'adminAddStamp', call: (f, as) => call('POST', `${campaign(f)}/report/stamps`, { as, body: { signerId: f.signerIds[0], version: f.version, decision: 'approve' } }), ok: 201 },
  { route: 'adminAddWaiver', call: (f, as) => call('POST', `${campaign(f)}/report/waivers`, { as, body: { signerId: f.signerIds[1], version: f.version, reason: 'Away' } }), ok: 201 },
  { route: 'adminRemoveSigner', call: (f, as) => call('DELETE', `${campaign(f)}/signers/${f.signerIds[0]}`, { as }), ok: 204 },
  { route: 'adminCreateTask', call: (f, as) => call('POST', `${campaign(f)}/tasks`, { as, body: { title: 'Check out', required: false } }), ok: 201 },
  { route: 'adminListTasks', call: (f, as) => call('GET', `${campaign(f)}/tasks`, { as }), ok: 200 },
  { route: 'adminListTesters', call: (f, as) => call('GET', `${campaign(f)}/testers`, { as }), ok: 200 },
  { route: 'adminCreateTester', call: (f, as) => call('POST', `${campaign(f)}/testers`, { as, body: { name: 'Kim', email: 'kim@example.com' } }), ok: 201 },
  { route: 'adminCompleteTask', call: (f, as) => call('POST', `/admin/v1/campaign-testers/${f.testerId}/tasks/${f.taskId}/complete`, { as, body: { verdict: 'Pass' } }), ok: 200 },
  { route: 'adminChangeCampaignStatus', call: (f, as) => call('POST', `${campaign(f)}/status`, { as, body: { to: 'Active' } }), ok: 200 },
  { route: 'adminCreateCampaign', call: (f, as) => call('POST', `/admin/v1/sites/${f.siteId}/campaigns`, { as, body: { name: 'Another' } }), ok: 201 },
  { route: 'adminListCampaigns', call: (f, as) => call('GET', `/admin/v1/organizations/${f.orgId}/campaigns`, { as }), ok: 200 },
  { route: 'adminListSites', call: (f, as) => call('GET', `/admin/v1/organizations/${f.orgId}/sites`, { as }), ok: 200 },
  { route: 'adminCreateSite', call: (f, as) => call('POST', `/admin/v1/organizations/${f.orgId}/sites`, { as, body: { name: 'Second shop' } }), ok: 201 },
];

/** What the operator reads of organisation A, and every row of the service's schema. */
async function stateOf(f: Fixture) {
  const read = async (path: string) => json(await svc.get(path, OPERATOR), 200);
  return {
    campaign: await read(`/admin/v1/campaigns/${f.campaignId}`),
    policy: await read(`/admin/v1/campaigns/${f.campaignId}/policy`),
    signers: await read(`/admin/v1/campaigns/${f.campaignId}/signers`),
    tasks: await read(`/admin/v1/campaigns/${f.campaignId}/tasks`),
    testers: await read(`/admin/v1/campaigns/${f.campaignId}/testers`),
    report: await read(`/admin/v1/campaigns/${f.campaignId}/report`),
    campaigns: await read(`/admin/v1/organizations/${orgA}/campaigns`),
    sites: await read(`/admin/v1/organizations/${orgA}/sites`),
    rows: await schemaRows(svc.service.database.schema),
  };
}

describe('admin routes for console members', () => {
  it('covers every campaign route members may call (the manifest)', () => {
    expect(CASES.map((c) => c.route).sort()).toEqual(memberRoutes(ADMIN_ENDPOINTS, 'campaign'));
  });

  it('answers a member of another organisation exactly as for unknown ids, on every route, and changes nothing', async () => {
    const f = await fixture();
    const before = await stateOf(f);
    const outsider = memberOf(orgB, 'Owner');
    const answers = await answersOf(CASES, f, outsider);
    expect(answers.map((a) => [a.route, a.status, a.problem?.detail])).toEqual(CASES.map((c) => [c.route, 404, expect.stringMatching(/^No (campaign|campaign tester|site|organization) with id '<id>' was found\.$/)]));
    expect(answers).toEqual(await answersOf(CASES, withFreshIds(f), outsider));
    expect(await stateOf(f)).toEqual(before);
  });

  it('serves a member of the organisation and the operator on every route, with the same events', async () => {
    // Each in an organisation of its own, so the events each enqueued can be told apart.
    const mine = await fixture(newOrgId());
    const operators = await fixture(newOrgId());
    const served = CASES.map((c) => [c.route, c.ok]);
    expect((await answersOf(CASES, mine, memberOf(mine.orgId, 'Admin'))).map((a) => [a.route, a.status])).toEqual(served);
    expect((await answersOf(CASES, operators, OPERATOR)).map((a) => [a.route, a.status])).toEqual(served);
    // The member's changes are the campaign's like anyone's: the operator reads them back.
    expect(await json(await svc.get(campaign(mine), OPERATOR), 200)).toMatchObject({ id: mine.campaignId, status: 'Active' });
    const signers = await json<Array<{ id: string }>>(await svc.get(`${campaign(mine)}/signers`, OPERATOR), 200);
    expect(signers.map((s) => s.id)).not.toContain(mine.signerIds[0]);
    expect(signers).toHaveLength(2);
    const schema = svc.service.database.schema;
    const events = await outboxTypes(schema, mine.orgId);
    expect(events.filter((type) => type.endsWith('.CampaignLaunched'))).toHaveLength(1);
    expect(events).toEqual(await outboxTypes(schema, operators.orgId));
  });

  it("lists a member's own organisation only", async () => {
    const own = await createSite(svc, orgB, 'B shop');
    const sites = await json<Array<{ id: string }>>(await svc.get(`/admin/v1/organizations/${orgB}/sites`, memberOf(orgB, 'Member')), 200);
    expect(sites.map((s) => s.id)).toEqual([own.id]);
  });
});
