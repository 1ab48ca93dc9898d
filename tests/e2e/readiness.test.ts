import { describe, expect, inject, it } from 'vitest';
import { eventually } from '@preflight/testing';
import { call, freshTenant } from '../support/client.ts';
import { expectProblem } from './problems.ts';

// Readiness is computed by the campaign service from issue events that travel from the issue
// service through its outbox and JetStream; these tests watch it only as a client would.
const sys = inject('system');

async function verdictOf(key: string, campaignId: string) {
  const res = await call(sys, 'GET', '/api/v1/campaigns', { apiKey: key });
  const campaign = res.body.find((c: { id: string }) => c.id === campaignId);
  return { readinessLevel: campaign.readinessLevel, gate: campaign.gate };
}

async function expectVerdict(key: string, campaignId: string, readinessLevel: string, gate: string) {
  await eventually(async () => expect(await verdictOf(key, campaignId)).toEqual({ readinessLevel, gate }), { timeoutMs: 10_000 });
}

describe('launch readiness', () => {
  it('follows the open issues of a campaign through every level', async () => {
    const t = await freshTenant(sys, { rw: ['read', 'write'] });
    const key = t.keys.rw!.key;
    const file = async (severity: string) =>
      (await call(sys, 'POST', `/api/v1/campaigns/${t.campaign.id}/issues`, { apiKey: key, body: { title: `${severity} issue`, severity, type: 'Bug' } })).body.id as string;

    await expectVerdict(key, t.campaign.id, 'ReadyToLaunch', 'cleared');
    const low = await file('Low');
    await expectVerdict(key, t.campaign.id, 'ReadyWithIssues', 'cleared');
    const high = await file('High');
    await expectVerdict(key, t.campaign.id, 'AtRisk', 'not-cleared');
    const critical = await file('Critical');
    await expectVerdict(key, t.campaign.id, 'DoNotLaunch', 'not-cleared');

    await t.admin.setIssueStatus(critical, { to: 'WontFix', reason: 'Third-party widget' });
    await expectVerdict(key, t.campaign.id, 'AtRisk', 'not-cleared');
    for (const to of ['Fixed', 'RetestRequested', 'RetestFixed']) await t.admin.setIssueStatus(high, { to });
    await expectVerdict(key, t.campaign.id, 'ReadyWithIssues', 'cleared');
    await t.admin.setIssueStatus(low, { to: 'Duplicate', duplicateOfId: high });
    await expectVerdict(key, t.campaign.id, 'ReadyToLaunch', 'cleared');
  });

  it('applies a campaign launch policy set through the admin API', async () => {
    const t = await freshTenant(sys, { rw: ['read', 'write'] });
    const key = t.keys.rw!.key;
    await call(sys, 'POST', `/api/v1/campaigns/${t.campaign.id}/issues`, { apiKey: key, body: { title: 'Slow page', severity: 'High', type: 'PerformanceIssue' } });
    await expectVerdict(key, t.campaign.id, 'AtRisk', 'not-cleared');

    const asAdmin = { token: sys.adminToken };
    const defaults = await call(sys, 'GET', `/admin/v1/campaigns/${t.campaign.id}/policy`, asAdmin);
    expect(defaults.body).toEqual({ doNotLaunch: { minSeverity: 'Critical', maxOpen: 0 }, atRisk: { minSeverity: 'High', maxOpen: 0 } });
    const tolerant = { doNotLaunch: { minSeverity: 'Critical', maxOpen: 0 }, atRisk: { minSeverity: 'High', maxOpen: 1 } };
    const put = await call(sys, 'PUT', `/admin/v1/campaigns/${t.campaign.id}/policy`, { ...asAdmin, body: tolerant });
    expect(put.status).toBe(200);
    expect(put.body).toEqual(tolerant);
    // The policy change recomputes the verdict at once, in the same transaction.
    expect(await verdictOf(key, t.campaign.id)).toEqual({ readinessLevel: 'ReadyWithIssues', gate: 'cleared' });

    const inconsistent = { doNotLaunch: { minSeverity: 'High', maxOpen: 0 }, atRisk: { minSeverity: 'Critical', maxOpen: 0 } };
    expectProblem(await call(sys, 'PUT', `/admin/v1/campaigns/${t.campaign.id}/policy`, { ...asAdmin, body: inconsistent }), 422);
  });
});
