import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '@preflight/testing';
import { call, freshTenant } from '../support/client.ts';
import { startReceiver } from '../support/receiver.ts';
import { expectProblem } from './problems.ts';

// Launch sign-off and testers through the running system: the admin API (gateway → campaign),
// the campaign service's outbox, JetStream, and the delivery service's signed POSTs to a
// loopback receiver subscribed through the public API.
const sys = inject('system');
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const signedWith = (body: string, header: unknown, secret: string) => {
  const expected = Buffer.from(`sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')}`);
  const given = Buffer.from(String(header ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
};

describe('launch sign-off and testers, delivered as webhooks', () => {
  it('delivers ReportSealed and TesterCompleted with every data field', async () => {
    const t = await freshTenant(sys, { all: ['read', 'write', 'webhooks'] });
    const key = t.keys.all!.key;
    const campaignId = t.campaign.id as string;
    const adminCall = async (method: string, path: string, body?: unknown, status = method === 'GET' ? 200 : 201) => {
      const res = await call(sys, method, path, { token: sys.adminToken, body });
      expect(res.status, res.text).toBe(status);
      return res.body;
    };

    const hook = await call(sys, 'POST', '/api/v1/webhooks', { apiKey: key, body: { url: receiver.url, events: ['ReportSealed', 'TesterCompleted'], name: 'Launch desk' } });
    expect(hook.status).toBe(201);
    await t.admin.setCampaignStatus(campaignId, 'Active');

    // Two signers make the gate wait for them.
    const dana = await adminCall('POST', `/admin/v1/campaigns/${campaignId}/signers`, { name: 'Dana Product', email: 'dana@example.com' });
    const lee = await adminCall('POST', `/admin/v1/campaigns/${campaignId}/signers`, { name: 'Lee QA', email: 'lee@example.com' });
    expect(await adminCall('GET', `/admin/v1/campaigns/${campaignId}/signers`)).toEqual([dana, lee]);
    const campaigns = async () => (await call(sys, 'GET', '/api/v1/campaigns', { apiKey: key })).body.find((c: { id: string }) => c.id === campaignId);
    expect(await campaigns()).toMatchObject({ readinessLevel: 'ReadyToLaunch', gate: 'awaiting-signoff' });

    // A tester files an issue from the dashboard; readiness follows it (a new report version).
    await t.admin.createIssue(campaignId, { title: 'Coupon field ignores Enter', severity: 'Medium', type: 'Bug', testerEmail: 'sam@example.com' });
    const report = await eventually(
      async () => {
        const r = await adminCall('GET', `/admin/v1/campaigns/${campaignId}/report`);
        expect(r).toMatchObject({ version: 2, readinessLevel: 'ReadyWithIssues', gate: 'awaiting-signoff', sealState: 'open', requiredCount: 2 });
        return r;
      },
      { timeoutMs: 15_000 },
    );

    // A stamp on a stale version is refused and changes nothing.
    const stale = await call(sys, 'POST', `/admin/v1/campaigns/${campaignId}/report/stamps`, { token: sys.adminToken, body: { signerId: dana.id, version: 1, decision: 'approve' } });
    expect(expectProblem(stale, 409).detail).toContain('version 2');

    await adminCall('POST', `/admin/v1/campaigns/${campaignId}/report/stamps`, { signerId: dana.id, version: report.version, decision: 'approve', note: 'Ship it' });
    await adminCall('POST', `/admin/v1/campaigns/${campaignId}/report/waivers`, { signerId: lee.id, version: report.version, reason: 'On leave' });
    expect(await adminCall('GET', `/admin/v1/campaigns/${campaignId}/report`)).toMatchObject({
      version: 2, sealState: 'sealed', sealedVersion: 2, signedCount: 1, waivedCount: 1, requiredCount: 2, gate: 'cleared',
    });
    expect(await campaigns()).toMatchObject({ readinessLevel: 'ReadyWithIssues', gate: 'cleared' });

    // Testers: one required and one optional task; the optional one stays undone.
    const required = await adminCall('POST', `/admin/v1/campaigns/${campaignId}/tasks`, { title: 'Check out with a coupon', required: true });
    await adminCall('POST', `/admin/v1/campaigns/${campaignId}/tasks`, { title: 'Rate the shop', required: false });
    const sam = await adminCall('POST', `/admin/v1/campaigns/${campaignId}/testers`, { name: 'Sam Tester', email: 'sam@example.com' });
    expect(sam).toEqual({ id: expect.any(String), name: 'Sam Tester', email: 'sam@example.com', preview: false, status: 'Invited' });
    const done = await adminCall('POST', `/admin/v1/campaign-testers/${sam.id}/tasks/${required.id}/complete`, { verdict: 'Pass' }, 200);
    expect(done).toMatchObject({ id: sam.id, status: 'Completed', completedTasks: [{ id: required.id, required: true, verdict: 'Pass' }] });

    const mine = () => receiver.received.filter((d) => JSON.parse(d.body).data.campaignId === campaignId);
    await eventually(() => expect(mine().map((d) => d.headers['x-service-event']).sort()).toEqual(['ReportSealed', 'TesterCompleted']), { timeoutMs: 15_000 });

    const envelope = (type: string) => {
      const delivery = mine().find((d) => d.headers['x-service-event'] === type)!;
      expect(signedWith(delivery.body, delivery.headers['x-service-signature'], hook.body.secret)).toBe(true);
      const parsed = JSON.parse(delivery.body);
      expect(Object.keys(parsed).sort()).toEqual(['data', 'eventType', 'id', 'occurredAt']);
      expect(parsed.eventType).toBe(type);
      return parsed;
    };
    expect(envelope('ReportSealed').data).toEqual({
      campaignId,
      name: 'Launch',
      siteId: t.site.id,
      siteName: 'Shop',
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
    expect(envelope('TesterCompleted').data).toEqual({
      campaignId,
      campaignName: 'Launch',
      campaignTesterId: sam.id,
      testerName: 'Sam Tester',
      verdict: 'Pass',
      issuesReported: 1,
    });
  });
});
