import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '@preflight/db';
import { toPublicEvents } from '@preflight/events';
import { eventually } from '@preflight/testing';
import { READINESS_CONSUMER } from '../src/consumers/readiness.ts';
import { admin, apiKeyOf, createCampaign, createSite, json, MISSING_ID, newOrgId, problem, startTestService, type TestService } from './harness.ts';
import { campaignEvents, issueCreated, publishIssueEvent, statusChanged } from './events.ts';

let svc: TestService;
let orgId: string;
let site: { id: string; name: string };

beforeAll(async () => {
  svc = await startTestService('campaign_signoff');
  orgId = newOrgId();
  site = await createSite(svc, orgId, 'Storefront');
});
afterAll(() => svc.stop());

type Report = {
  version: number;
  readinessLevel: string;
  gate: string;
  sealState: string;
  sealedVersion: number | null;
  requiredCount: number;
  signedCount: number;
  waivedCount: number;
  entries: Array<{ signerId: string; version: number; kind: string; decision: string | null; note: string | null; at: string }>;
};

const report = async (campaignId: string) => json<Report>(await svc.get(`/admin/v1/campaigns/${campaignId}/report`, admin), 200);
const addSigner = async (campaignId: string, name: string, email = `${name.toLowerCase().replace(/\W/g, '')}@example.com`) =>
  json<{ id: string; name: string; email: string; createdAt: string }>(await svc.post(`/admin/v1/campaigns/${campaignId}/signers`, { name, email }, admin), 201);
const stamp = (campaignId: string, body: Record<string, unknown>) => svc.post(`/admin/v1/campaigns/${campaignId}/report/stamps`, body, admin);
const waive = (campaignId: string, body: Record<string, unknown>) => svc.post(`/admin/v1/campaigns/${campaignId}/report/waivers`, body, admin);

/** The campaign as an integrator reads it (GET /api/v1/campaigns). */
async function publicCampaign(campaignId: string): Promise<Record<string, any>> {
  const list = await json<Array<Record<string, any>>>(await svc.get('/api/v1/campaigns', apiKeyOf(orgId)), 200);
  const found = list.find((c) => c.id === campaignId);
  if (!found) throw new Error(`campaign ${campaignId} not listed`);
  return found;
}

/** Waits for the report to reach `version` (issue events are projected asynchronously). */
const reportAt = (campaignId: string, version: number) =>
  eventually(async () => {
    const r = await report(campaignId);
    expect(r.version).toBe(version);
    return r;
  });

/** The public data of every ReportSealed about the campaign in the stream, in order. */
async function sealedEvents(campaignId: string) {
  const events = await campaignEvents(svc, campaignId);
  return events.filter((e) => e.event.kind === 'ReportSealed').map((e) => toPublicEvents(e.event)[0]!);
}

/** Waits until exactly `n` ReportSealed about the campaign are in the stream. */
const sealedN = (campaignId: string, n: number) =>
  eventually(async () => {
    const sealed = await sealedEvents(campaignId);
    expect(sealed).toHaveLength(n);
    return sealed;
  });

describe('launch sign-off', () => {
  it('seals the report once every signer stamped or was waived on the current version, and emits ReportSealed', async () => {
    const campaign = await createCampaign(svc, site.id, 'Sealed launch');
    const id = campaign.id as string;
    expect(await report(id)).toEqual({
      version: 1, readinessLevel: 'ReadyToLaunch', gate: 'cleared', sealState: 'open', sealedVersion: null, requiredCount: 0, signedCount: 0, waivedCount: 0, entries: [],
    });

    const dana = await addSigner(id, 'Dana Product');
    expect(dana).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Dana Product', email: 'danaproduct@example.com', createdAt: expect.any(String) });
    const lee = await addSigner(id, 'Lee QA');
    expect((await json(await svc.get(`/admin/v1/campaigns/${id}/signers`, admin), 200)).map((s: { id: string }) => s.id)).toEqual([dana.id, lee.id]);
    // Signers make the gate wait for them.
    expect(await publicCampaign(id)).toMatchObject({ readinessLevel: 'ReadyToLaunch', gate: 'awaiting-signoff' });

    // An open issue: a new version (the verdict and the open set changed).
    const issue = issueCreated({ orgId, campaignId: id, severity: 'Low' });
    await publishIssueEvent(svc, 'IssueCreated', issue);
    const v2 = await reportAt(id, 2);
    expect(v2).toMatchObject({ readinessLevel: 'ReadyWithIssues', gate: 'awaiting-signoff', sealState: 'open', requiredCount: 2 });

    const stamped = await json(await stamp(id, { signerId: dana.id, version: 2, decision: 'approve', note: 'Looks good' }), 201);
    expect(stamped).toEqual({ signerId: dana.id, version: 2, kind: 'stamp', decision: 'approve', note: 'Looks good', at: expect.any(String) });
    expect(await report(id)).toMatchObject({ sealState: 'open', signedCount: 1, waivedCount: 0, gate: 'awaiting-signoff' });

    const waived = await json(await waive(id, { signerId: lee.id, version: 2, reason: 'On leave' }), 201);
    expect(waived).toEqual({ signerId: lee.id, version: 2, kind: 'waiver', decision: null, note: 'On leave', at: expect.any(String) });
    const sealed = await report(id);
    expect(sealed).toMatchObject({ version: 2, sealState: 'sealed', sealedVersion: 2, requiredCount: 2, signedCount: 1, waivedCount: 1, gate: 'cleared', readinessLevel: 'ReadyWithIssues' });
    expect(sealed.entries.map((e) => [e.signerId, e.version, e.kind])).toEqual([[dana.id, 2, 'stamp'], [lee.id, 2, 'waiver']]);
    expect(await publicCampaign(id)).toMatchObject({ readinessLevel: 'ReadyWithIssues', gate: 'cleared' });

    const [event] = await sealedN(id, 1);
    expect(event!.eventType).toBe('ReportSealed');
    expect(event!.data).toEqual({
      campaignId: id,
      name: 'Sealed launch',
      siteId: site.id,
      siteName: 'Storefront',
      sealState: 'sealed',
      signedCount: 1,
      waivedCount: 1,
      requiredCount: 2,
      gate: 'cleared',
      readinessLevel: 'ReadyWithIssues',
      sealedVersion: 2,
      signedBy: ['Dana Product'],
      decision: 'approve',
    });

    // A sealed version takes no second entry from a signer.
    const again = await problem(await stamp(id, { signerId: lee.id, version: 2, decision: 'reject' }), 409);
    expect(again.detail).toMatch(/version 2/);

    // The issue closes: a new version, unsealed, waiting for the signers again.
    await publishIssueEvent(svc, 'IssueStatusChanged', statusChanged({ orgId, campaignId: id, issueId: issue.issueId, severity: 'Low', from: 'New', to: 'Closed', revision: 2 }));
    const v3 = await reportAt(id, 3);
    expect(v3).toMatchObject({ readinessLevel: 'ReadyToLaunch', gate: 'awaiting-signoff', sealState: 'open', sealedVersion: null, signedCount: 0, waivedCount: 0 });
    expect(v3.entries).toHaveLength(2); // the history stays
    expect(await publicCampaign(id)).toMatchObject({ gate: 'awaiting-signoff' });
    expect(await sealedEvents(id)).toHaveLength(1);
  });

  it('refuses a stamp on a stale version (409) and never counts stamps of older versions', async () => {
    const id = (await createCampaign(svc, site.id, 'Stale stamps')).id as string;
    const a = await addSigner(id, 'Ana');
    const b = await addSigner(id, 'Ben');
    await json(await stamp(id, { signerId: a.id, version: 1, decision: 'approve' }), 201);

    await publishIssueEvent(svc, 'IssueCreated', issueCreated({ orgId, campaignId: id, severity: 'Medium' }));
    const v2 = await reportAt(id, 2);
    // Ana's stamp was on version 1: it does not count on version 2.
    expect(v2).toMatchObject({ sealState: 'open', signedCount: 0, gate: 'awaiting-signoff' });

    const stale = await problem(await stamp(id, { signerId: a.id, version: 1, decision: 'approve' }), 409);
    expect(stale.detail).toBe('The report is at version 2; version 1 is not the current one.');
    expect(stale.currentVersion).toBe(2);
    await problem(await waive(id, { signerId: b.id, version: 3 }), 409); // a future one neither

    await json(await stamp(id, { signerId: b.id, version: 2, decision: 'approve' }), 201);
    expect(await report(id)).toMatchObject({ sealState: 'open', signedCount: 1, gate: 'awaiting-signoff' });
    await json(await stamp(id, { signerId: a.id, version: 2, decision: 'approve' }), 201);
    expect(await report(id)).toMatchObject({ sealState: 'sealed', sealedVersion: 2, signedCount: 2, gate: 'cleared' });
    const [event] = await sealedN(id, 1);
    expect(event!.data).toMatchObject({ sealedVersion: 2, signedBy: ['Ben', 'Ana'], signedCount: 2, waivedCount: 0, decision: 'approve' });
  });

  it('seals a rejected report with decision reject and a not-cleared gate', async () => {
    const id = (await createCampaign(svc, site.id, 'Rejected')).id as string;
    const a = await addSigner(id, 'Ana');
    const b = await addSigner(id, 'Ben');
    await json(await stamp(id, { signerId: a.id, version: 1, decision: 'approve' }), 201);
    await json(await stamp(id, { signerId: b.id, version: 1, decision: 'reject', note: 'Checkout copy is wrong' }), 201);
    expect(await report(id)).toMatchObject({ sealState: 'sealed', sealedVersion: 1, readinessLevel: 'ReadyToLaunch', gate: 'not-cleared' });
    expect(await publicCampaign(id)).toMatchObject({ readinessLevel: 'ReadyToLaunch', gate: 'not-cleared' });
    const [event] = await sealedN(id, 1);
    expect(event!.data).toMatchObject({ decision: 'reject', gate: 'not-cleared', readinessLevel: 'ReadyToLaunch', signedBy: ['Ana', 'Ben'], sealedVersion: 1 });
  });

  it('keeps a blocking level not-cleared whatever the seal; signers added or removed move the seal', async () => {
    const id = (await createCampaign(svc, site.id, 'Gate values')).id as string;
    const a = await addSigner(id, 'Ana');
    await publishIssueEvent(svc, 'IssueCreated', issueCreated({ orgId, campaignId: id, severity: 'High' }));
    await reportAt(id, 2);
    expect(await publicCampaign(id)).toMatchObject({ readinessLevel: 'AtRisk', gate: 'not-cleared' });
    await json(await stamp(id, { signerId: a.id, version: 2, decision: 'approve' }), 201);
    expect(await report(id)).toMatchObject({ sealState: 'sealed', gate: 'not-cleared', readinessLevel: 'AtRisk' });
    expect((await sealedN(id, 1))[0]!.data).toMatchObject({ gate: 'not-cleared', readinessLevel: 'AtRisk', decision: 'approve' });

    // A policy that tolerates the High issue: the level changes (a new version), unsealed.
    const policy = { doNotLaunch: { minSeverity: 'Critical', maxOpen: 0 }, atRisk: { minSeverity: 'High', maxOpen: 5 } };
    await json(await svc.put(`/admin/v1/campaigns/${id}/policy`, policy, admin), 200);
    expect(await report(id)).toMatchObject({ version: 3, readinessLevel: 'ReadyWithIssues', sealState: 'open', gate: 'awaiting-signoff' });
    await json(await stamp(id, { signerId: a.id, version: 3, decision: 'approve' }), 201);
    expect(await report(id)).toMatchObject({ version: 3, sealState: 'sealed', sealedVersion: 3, gate: 'cleared' });

    // A signer added to a sealed report unseals it until they are in; removing them seals it again.
    const b = await addSigner(id, 'Ben');
    expect(await report(id)).toMatchObject({ version: 3, sealState: 'open', sealedVersion: null, requiredCount: 2, signedCount: 1, gate: 'awaiting-signoff' });
    expect((await svc.delete(`/admin/v1/campaigns/${id}/signers/${b.id}`, admin)).status).toBe(204);
    expect(await report(id)).toMatchObject({ version: 3, sealState: 'sealed', sealedVersion: 3, requiredCount: 1, gate: 'cleared' });
    const sealed = await sealedN(id, 3);
    expect(sealed.map((e) => e.data.sealedVersion)).toEqual([2, 3, 3]);

    // No signer left: the gate is the level's alone, as before sign-offs.
    expect((await svc.delete(`/admin/v1/campaigns/${id}/signers/${a.id}`, admin)).status).toBe(204);
    expect(await report(id)).toMatchObject({ sealState: 'open', requiredCount: 0, gate: 'cleared', entries: [] });
    await problem(await svc.delete(`/admin/v1/campaigns/${id}/signers/${a.id}`, admin), 404);
  });

  it('makes a new version for each change of the level or of the set of open issues, and only then', async () => {
    const id = (await createCampaign(svc, site.id, 'Versions')).id as string;
    const first = issueCreated({ orgId, campaignId: id, severity: 'Low' });
    await publishIssueEvent(svc, 'IssueCreated', first);
    await reportAt(id, 2); // level and open set
    await publishIssueEvent(svc, 'IssueCreated', issueCreated({ orgId, campaignId: id, severity: 'Low' }));
    expect(await reportAt(id, 3)).toMatchObject({ readinessLevel: 'ReadyWithIssues' }); // open set only
    // Still open, level unchanged: no new version. Then closed: a new one.
    const moved = await publishIssueEvent(svc, 'IssueStatusChanged', statusChanged({ orgId, campaignId: id, issueId: first.issueId, severity: 'Low', from: 'New', to: 'InProgress', revision: 2 }));
    const closed = await publishIssueEvent(svc, 'IssueStatusChanged', statusChanged({ orgId, campaignId: id, issueId: first.issueId, severity: 'Low', from: 'InProgress', to: 'Closed', revision: 3 }));
    await eventually(async () => {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from inbox where consumer = ${READINESS_CONSUMER} and event_id = any(${[moved.msgID, closed.msgID]})`.execute(svc.db);
      expect(rows[0]!.n).toBe(2);
    });
    expect(await report(id)).toMatchObject({ version: 4, readinessLevel: 'ReadyWithIssues' });
    await publishIssueEvent(svc, 'IssueStatusChanged', statusChanged({ orgId, campaignId: id, issueId: first.issueId, severity: 'Low', from: 'Closed', to: 'RetestFailed', revision: 4 }));
    expect(await reportAt(id, 5)).toMatchObject({ readinessLevel: 'ReadyWithIssues' });
  });

  it('validates signers, stamps and waivers', async () => {
    const id = (await createCampaign(svc, site.id, 'Validation')).id as string;
    const a = await addSigner(id, 'Ana', 'ana@example.com');
    expect((await problem(await svc.post(`/admin/v1/campaigns/${id}/signers`, { name: 'Ana again', email: 'ANA@example.com' }, admin), 409)).detail).toMatch(/already a signer/);
    const bad = await problem(await svc.post(`/admin/v1/campaigns/${id}/signers`, { name: '', email: 'nope', extra: 1 }, admin), 422);
    expect(Object.keys(bad.errors).sort()).toEqual(['email', 'extra', 'name']);

    const badStamp = await problem(await stamp(id, { signerId: 'x', version: 0, decision: 'maybe' }), 422);
    expect(Object.keys(badStamp.errors).sort()).toEqual(['decision', 'signerId', 'version']);
    const stranger = await problem(await stamp(id, { signerId: MISSING_ID, version: 1, decision: 'approve' }), 422);
    expect(stranger.errors).toEqual({ signerId: ['Is not a signer of this campaign.'] });
    await problem(await stamp(MISSING_ID, { signerId: a.id, version: 1, decision: 'approve' }), 404);
    await problem(await svc.get(`/admin/v1/campaigns/${MISSING_ID}/report`, admin), 404);
    await problem(await svc.get(`/admin/v1/campaigns/${MISSING_ID}/signers`, admin), 404);
    await problem(await svc.get(`/admin/v1/campaigns/${id}/report`, apiKeyOf(orgId)), 403);

    await json(await waive(id, { signerId: a.id, version: 1 }), 201);
    await problem(await stamp(id, { signerId: a.id, version: 1, decision: 'approve' }), 409);
    // Sealed by a waiver alone: no stamp voted against, so it is approved.
    expect(await report(id)).toMatchObject({ sealState: 'sealed', signedCount: 0, waivedCount: 1, gate: 'cleared' });
    expect((await sealedN(id, 1))[0]!.data).toMatchObject({ signedBy: [], decision: 'approve', waivedCount: 1 });
  });
});
