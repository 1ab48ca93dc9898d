import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '@preflight/testing';
import { call, freshTenant } from '../support/client.ts';
import { startReceiver } from '../support/receiver.ts';
import { expectProblem } from './problems.ts';

const sys = inject('system');
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

/** What a receiver should do (docs/webhooks.md): verify over the raw bytes, in constant time. */
function verifiesHexSignature(body: string, header: string | undefined, secret: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')}`);
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('the event catalogue', () => {
  it('lists the emitted events and serves a sample envelope for each', async () => {
    const t = await freshTenant(sys, { r: ['read'] });
    const events = await call(sys, 'GET', '/api/v1/events', { apiKey: t.keys.r!.key });
    expect(events.body).toEqual([
      'CampaignLaunched', 'CampaignClosed', 'ReportSealed', 'TesterCompleted', 'IssueCreated', 'IssueUpdated', 'IssueClosed', 'RetestRequested', 'RetestCompleted',
    ]);
    const sample = await call(sys, 'GET', '/api/v1/events/IssueCreated/sample', { apiKey: t.keys.r!.key });
    expect(sample.status).toBe(200);
    expect(sample.body).toMatchObject({ eventType: 'IssueCreated', id: expect.any(String), occurredAt: expect.any(String) });
    expect(Object.keys(sample.body.data).sort()).toEqual(['campaignId', 'issueId', 'pageUrl', 'severity', 'status', 'title', 'type']);
    expectProblem(await call(sys, 'GET', '/api/v1/events/TesterInvited/sample', { apiKey: t.keys.r!.key }), 404);
  });
});

describe('webhook subscriptions and deliveries', () => {
  it('delivers signed events to a subscribed URL and logs every attempt', async () => {
    const t = await freshTenant(sys, { all: ['read', 'write', 'webhooks'] });
    const key = t.keys.all!.key;
    const created = await call(sys, 'POST', '/api/v1/webhooks', {
      apiKey: key,
      body: { url: receiver.url, events: ['IssueCreated', 'IssueClosed', 'CampaignLaunched'], name: 'CI' },
    });
    expect(created.status).toBe(201);
    const { id: webhookId, secret } = created.body;
    expect(Buffer.from(secret, 'base64').length).toBeGreaterThanOrEqual(32);

    const listed = await call(sys, 'GET', '/api/v1/webhooks', { apiKey: key });
    expect(listed.body).toEqual([
      { id: webhookId, name: 'CI', url: receiver.url, events: ['IssueCreated', 'IssueClosed', 'CampaignLaunched'], isEnabled: true, source: 'api', createdAt: expect.any(String) },
    ]);
    expect(listed.text).not.toContain(secret);

    await t.admin.setCampaignStatus(t.campaign.id, 'Active');
    const issue = await call(sys, 'POST', `/api/v1/campaigns/${t.campaign.id}/issues`, {
      apiKey: key,
      body: { title: 'Footer links 404', severity: 'Medium', type: 'ContentError', pageUrl: 'https://shop.example.com/' },
    });
    await t.admin.setIssueStatus(issue.body.id, { to: 'Acknowledged' }); // IssueUpdated: not subscribed
    await t.admin.setIssueStatus(issue.body.id, { to: 'Closed', reason: 'Links fixed' });

    const mine = () => receiver.received.filter((d) => JSON.parse(d.body).data.campaignId === t.campaign.id);
    await eventually(() => expect(mine().map((d) => d.headers['x-service-event']).sort()).toEqual(['CampaignLaunched', 'IssueClosed', 'IssueCreated']), { timeoutMs: 15_000 });

    const verifier = new Webhook(`whsec_${secret}`);
    for (const delivery of mine()) {
      const envelope = JSON.parse(delivery.body);
      expect(delivery.headers['content-type']).toMatch(/^application\/json/);
      expect(delivery.headers['x-service-event']).toBe(envelope.eventType);
      expect(delivery.headers['x-service-delivery']).toMatch(/^[0-9a-f-]{36}$/);
      expect(verifiesHexSignature(delivery.body, delivery.headers['x-service-signature'] as string, secret)).toBe(true);
      expect(() => verifier.verify(delivery.body, delivery.headers as Record<string, string>)).not.toThrow();
      expect(Object.keys(envelope).sort()).toEqual(['data', 'eventType', 'id', 'occurredAt']);
    }
    const closed = JSON.parse(mine().find((d) => d.headers['x-service-event'] === 'IssueClosed')!.body);
    expect(closed.data).toEqual({ issueId: issue.body.id, campaignId: t.campaign.id, title: 'Footer links 404', oldStatus: 'Acknowledged', newStatus: 'Closed', reason: 'Links fixed' });
    const launched = JSON.parse(mine().find((d) => d.headers['x-service-event'] === 'CampaignLaunched')!.body);
    expect(launched.data).toEqual({ campaignId: t.campaign.id, name: 'Launch', status: 'Active' });

    // An attempt is logged a few ms after its request (attempts are recorded in batches).
    const log = await eventually(async () => {
      const l = await call(sys, 'GET', `/admin/v1/webhooks/${webhookId}/deliveries`, { token: sys.adminToken });
      expect(l.status).toBe(200);
      expect(l.body).toHaveLength(3);
      return l;
    });
    for (const attempt of log.body) expect(attempt).toMatchObject({ attempt: 1, statusCode: 200, outcome: 'delivered', responseBody: 'ok' });

    const admin = await call(sys, 'GET', `/admin/v1/organizations/${t.org.id}/webhooks`, { token: sys.adminToken });
    expect(admin.body[0]).toMatchObject({ id: webhookId, consecutiveFailures: 0, disabledAt: null });
  });

  it('validates subscriptions, isolates organisations and unsubscribes', async () => {
    const t = await freshTenant(sys, { hooks: ['webhooks'], read: ['read'] });
    const other = await freshTenant(sys, { hooks: ['webhooks'] });
    const key = t.keys.hooks!.key;

    const bad = expectProblem(await call(sys, 'POST', '/api/v1/webhooks', { apiKey: key, body: { url: 'ftp://example.com', events: ['IssueCreated', 'NoSuchEvent'] } }), 422);
    expect(Object.keys(bad.errors).sort()).toEqual(['events.1', 'url']);
    const reserved = await call(sys, 'POST', '/api/v1/webhooks', { apiKey: key, body: { url: receiver.url, events: ['TesterInvited'] } });
    expect(reserved.status).toBe(201);
    const everything = await call(sys, 'POST', '/api/v1/webhooks', { apiKey: key, body: { url: receiver.url } });
    expect(everything.body.events).toEqual([]);

    expectProblem(await call(sys, 'GET', '/api/v1/webhooks', { apiKey: t.keys.read!.key }), 403);
    expectProblem(await call(sys, 'DELETE', `/api/v1/webhooks/${everything.body.id}`, { apiKey: other.keys.hooks!.key }), 404);
    expect((await call(sys, 'GET', '/api/v1/webhooks', { apiKey: other.keys.hooks!.key })).body).toEqual([]);

    expect((await call(sys, 'DELETE', `/api/v1/webhooks/${everything.body.id}`, { apiKey: key })).status).toBe(204);
    expectProblem(await call(sys, 'DELETE', `/api/v1/webhooks/${everything.body.id}`, { apiKey: key }), 404);
    expect((await call(sys, 'GET', '/api/v1/webhooks', { apiKey: key })).body.map((w: { id: string }) => w.id)).toEqual([reserved.body.id]);

    // The delivery log: empty for an endpoint nothing was sent to yet, 404 for one the webhook service does not know.
    const quiet = await call(sys, 'GET', `/admin/v1/webhooks/${reserved.body.id}/deliveries`, { token: sys.adminToken });
    expect([quiet.status, quiet.body]).toEqual([200, []]);
    expectProblem(await call(sys, 'GET', `/admin/v1/webhooks/${randomUUID()}/deliveries`, { token: sys.adminToken }), 404);
  });
});
