import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '@preflight/db';
import { fromTimestamp } from '@preflight/events';
import { eventually } from '@preflight/testing';
import { createCampaign, createSite, json, moveCampaign, newOrgId, problem, startTestService, type TestService } from './harness.ts';
import { campaignEvents, type StreamedEvent } from './events.ts';

let svc: TestService;
let orgId: string;
let site: { id: string; name: string };

beforeAll(async () => {
  svc = await startTestService('campaign_events');
  orgId = newOrgId();
  site = await createSite(svc, orgId, 'Storefront');
});
afterAll(() => svc.stop());

/** Waits until exactly `n` events about the campaign are in the stream, and returns them. */
async function eventsOf(campaignId: string, n: number): Promise<StreamedEvent[]> {
  return eventually(async () => {
    const events = await campaignEvents(svc, campaignId);
    expect(events).toHaveLength(n);
    return events;
  });
}

/** kind, subject suffix, and the status pair of each event, for compact comparisons. */
const summary = (e: StreamedEvent) => {
  const m = e.event.message as { status?: string; oldStatus?: string; reason?: string };
  return { kind: e.event.kind, subject: e.subject.slice(svc.prefix.length + 1), oldStatus: m.oldStatus ?? null, status: m.status ?? null, reason: m.reason ?? null };
};

describe('domain events of campaign changes', () => {
  it('puts one CampaignCreated on the stream when a campaign is created', async () => {
    const created = await createCampaign(svc, site.id, 'Spring launch');
    const [event] = await eventsOf(created.id, 1);
    expect(event!.subject).toBe(`${svc.prefix}.campaign.created`);
    expect(event!.type).toBe('preflight.campaign.v1.CampaignCreated');
    expect(event!.orgId).toBe(orgId);
    expect(event!.msgId).toMatch(/^[0-9a-f-]{36}$/);
    expect(event!.event.kind).toBe('CampaignCreated');
    if (event!.event.kind !== 'CampaignCreated') throw new Error('unreachable');
    const m = event!.event.message;
    expect({ campaignId: m.campaignId, orgId: m.orgId, siteId: m.siteId, siteName: m.siteName, name: m.name, status: m.status }).toEqual({
      campaignId: created.id,
      orgId,
      siteId: site.id,
      siteName: 'Storefront',
      name: 'Spring launch',
      status: 'Draft',
    });
    expect(fromTimestamp(m.createdAt!).toISOString()).toBe(created.createdAt);
  });

  it('emits Launched, StatusChanged (pause, resume) and Closed along the lifecycle, with reasons', async () => {
    const { id } = await createCampaign(svc, site.id, 'Summer sale');
    await json(await moveCampaign(svc, id, 'Active', 'go'), 200);
    await json(await moveCampaign(svc, id, 'Paused'), 200);
    await problem(await moveCampaign(svc, id, 'Paused'), 409); // refused: no event
    await json(await moveCampaign(svc, id, 'Active', 'back on'), 200);
    await json(await moveCampaign(svc, id, 'Closed', 'done'), 200);

    const events = await eventsOf(id, 5);
    expect(events.map(summary)).toEqual([
      { kind: 'CampaignCreated', subject: 'campaign.created', oldStatus: null, status: 'Draft', reason: null },
      { kind: 'CampaignLaunched', subject: 'campaign.launched', oldStatus: 'Draft', status: 'Active', reason: 'go' },
      { kind: 'CampaignStatusChanged', subject: 'campaign.status_changed', oldStatus: 'Active', status: 'Paused', reason: null },
      { kind: 'CampaignStatusChanged', subject: 'campaign.status_changed', oldStatus: 'Paused', status: 'Active', reason: 'back on' },
      { kind: 'CampaignClosed', subject: 'campaign.closed', oldStatus: 'Active', status: 'Closed', reason: 'done' },
    ]);
    for (const e of events.slice(1)) {
      const m = e.event.message as { campaignId: string; orgId: string; name?: string; occurredAt?: unknown };
      expect({ campaignId: m.campaignId, orgId: m.orgId, name: m.name }).toEqual({ campaignId: id, orgId, name: 'Summer sale' });
      expect(m.occurredAt).toBeDefined();
      expect(e.orgId).toBe(orgId);
    }
    expect(new Set(events.map((e) => e.msgId)).size).toBe(5);
  });

  it('closes a Draft campaign with CampaignClosed (not Launched)', async () => {
    const { id } = await createCampaign(svc, site.id, 'Never launched');
    await json(await moveCampaign(svc, id, 'Closed'), 200);
    expect((await eventsOf(id, 2)).map((e) => e.event.kind)).toEqual(['CampaignCreated', 'CampaignClosed']);
  });

  it('closes a Paused campaign with CampaignClosed', async () => {
    const { id } = await createCampaign(svc, site.id, 'Paused then closed');
    await json(await moveCampaign(svc, id, 'Active'), 200);
    await json(await moveCampaign(svc, id, 'Paused'), 200);
    await json(await moveCampaign(svc, id, 'Closed'), 200);
    expect((await eventsOf(id, 4)).map((e) => e.event.kind)).toEqual(['CampaignCreated', 'CampaignLaunched', 'CampaignStatusChanged', 'CampaignClosed']);
  });
});

describe('crash windows', () => {
  it('a change committed while no relay runs is published exactly once by the next relay', async () => {
    const { id } = await createCampaign(svc, site.id, 'Crash after commit');
    await eventsOf(id, 1);

    await svc.service.stopRelay(); // the process "dies" right after the commit below
    await json(await moveCampaign(svc, id, 'Active', 'launch during the outage'), 200);
    const pending = await sql<{ id: string }>`select id from outbox where published_at is null`.execute(svc.db);
    expect(pending.rows).toHaveLength(1);
    expect(await campaignEvents(svc, id)).toHaveLength(1); // nothing can have published it

    svc.service.startRelay(); // a restarted replica
    const events = await eventsOf(id, 2);
    expect(events[1]!.event.kind).toBe('CampaignLaunched');
    expect(events[1]!.msgId).toBe(pending.rows[0]!.id);
    await eventually(async () => {
      const left = await sql<{ n: number }>`select count(*)::int as n from outbox where published_at is null`.execute(svc.db);
      expect(left.rows[0]!.n).toBe(0);
    });
    // A later change goes out after it, in order, and the launch is still there once.
    await json(await moveCampaign(svc, id, 'Closed'), 200);
    expect((await eventsOf(id, 3)).map((e) => e.event.kind)).toEqual(['CampaignCreated', 'CampaignLaunched', 'CampaignClosed']);
  });

  it('a row published but not marked (crash before the mark committed) is re-published and dropped as a duplicate', async () => {
    const { id } = await createCampaign(svc, site.id, 'Crash before mark');
    const [created] = await eventsOf(id, 1);

    await svc.service.stopRelay();
    // As if the relay's claim transaction had rolled back after JetStream stored the message.
    await sql`update outbox set published_at = null where id = ${created!.msgId!}`.execute(svc.db);
    svc.service.startRelay();
    await eventually(async () => {
      const row = await sql<{ published_at: Date | null; attempts: number }>`select published_at, attempts from outbox where id = ${created!.msgId!}`.execute(svc.db);
      expect(row.rows[0]!.published_at).not.toBeNull();
      expect(row.rows[0]!.attempts).toBe(2);
    });
    expect(await campaignEvents(svc, id)).toHaveLength(1);
  });
});

describe('operations', () => {
  it('reports Postgres and NATS in readiness and exports the outbox, consumer and readiness metrics', async () => {
    const ready = await json(await svc.get('/readyz'), 200);
    expect(ready).toEqual({ status: 'ready', checks: { postgres: 'ok', nats: 'ok' } });
    const metrics = await (await svc.get('/metrics')).text();
    for (const name of ['outbox_published_total', 'outbox_oldest_unpublished_age_seconds', 'consumer_lag', 'consumer_processed_total', 'campaign_readiness_recomputed_total']) {
      expect(metrics).toContain(`# TYPE ${name} `);
    }
    expect(metrics).toMatch(/outbox_published_total\{service="campaign"\} [1-9]/);
  });
});
