import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { createDatabase, type Database } from '@preflight/db';
import { createEvent, toTimestamp } from '@preflight/events';
import { TEST_DATABASE_URL, eventually } from '@preflight/testing';
import type { IssueDatabase } from '../src/storage/schema.ts';
import { eventPublisher, type EventPublisher } from './event-stream.ts';
import { asKey, startHarness, type Harness } from './harness.ts';

let h: Harness;
let publisher: EventPublisher;
let database: Database<IssueDatabase>;

beforeAll(async () => {
  h = await startHarness();
  publisher = await eventPublisher(h.prefix);
  database = createDatabase<IssueDatabase>({ url: TEST_DATABASE_URL, schema: h.schema, poolMax: 1 });
});
afterAll(async () => {
  await publisher?.close();
  await database?.close();
  await h?.close();
});

const processed = (outcome: 'success' | 'duplicate') => h.metric('consumer_processed_total', { consumer: 'issue-directory', outcome });

/** Publishes an event as the campaign service's relay would and waits until the consumer handled it. */
async function deliver(event: ReturnType<typeof createEvent>, orgId: string, id = randomUUID(), outcome: 'success' | 'duplicate' = 'success') {
  const before = await processed(outcome);
  expect((await publisher.publish(event, { id, orgId })).duplicate).toBe(false);
  await eventually(async () => expect(await processed(outcome)).toBeGreaterThan(before));
  return id;
}

const row = (campaignId: string) => database.db.selectFrom('campaign_directory').selectAll().where('campaign_id', '=', campaignId).executeTakeFirst();
const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000);

function created(c: { id: string; orgId: string; siteId: string; name: string; status: string; at: Date }) {
  return createEvent('CampaignCreated', { campaignId: c.id, orgId: c.orgId, siteId: c.siteId, siteName: 'shop.example.com', name: c.name, status: c.status, createdAt: toTimestamp(c.at) });
}
function changed(kind: 'CampaignLaunched' | 'CampaignClosed' | 'CampaignStatusChanged', c: { id: string; orgId: string; name: string; old: string; status: string; at: Date }) {
  return createEvent(kind, { campaignId: c.id, orgId: c.orgId, name: c.name, oldStatus: c.old, status: c.status, occurredAt: toTimestamp(c.at) });
}

/** Files an issue and returns what its detail says about the campaign. */
async function campaignSeenBy(campaignId: string, orgId: string) {
  const filed = await h.call('POST', `/api/v1/campaigns/${campaignId}/issues`, { as: asKey(orgId), body: { title: 't', severity: 'Low', type: 'Bug' } });
  expect(filed.status, JSON.stringify(filed.body)).toBe(201);
  const detail = await h.call('GET', `/api/v1/issues/${filed.body.id}`, { as: asKey(orgId) });
  return { campaignName: detail.body.campaignName, siteId: detail.body.siteId, siteName: detail.body.siteName };
}

describe('campaign events feed the directory', () => {
  const orgId = randomUUID();
  const id = randomUUID();
  const siteId = randomUUID();
  const createdAt = minutesAgo(30);

  it('fills the directory from CampaignCreated, with no read-through', async () => {
    await deliver(created({ id, orgId, siteId, name: 'Launch v1', status: 'Draft', at: createdAt }), orgId);
    expect(await campaignSeenBy(id, orgId)).toEqual({ campaignName: 'Launch v1', siteId, siteName: 'shop.example.com' });
    expect(await row(id)).toMatchObject({ org_id: orgId, status: 'Draft', site_id: siteId, created_at: createdAt });
    // The stand-in campaign service does not even know this campaign; it was never asked.
    expect(h.stub.requests.filter((r) => r.id === id)).toEqual([]);
  });

  it('applies a later CampaignClosed, and ignores an older event arriving after it', async () => {
    await deliver(changed('CampaignClosed', { id, orgId, name: 'Launch v3', old: 'Active', status: 'Closed', at: minutesAgo(10) }), orgId);
    expect(await row(id)).toMatchObject({ status: 'Closed', name: 'Launch v3' });

    await deliver(changed('CampaignStatusChanged', { id, orgId, name: 'Launch v2', old: 'Active', status: 'Paused', at: minutesAgo(20) }), orgId);
    await deliver(changed('CampaignLaunched', { id, orgId, name: 'Launch v2', old: 'Draft', status: 'Active', at: minutesAgo(25) }), orgId);
    expect(await row(id)).toMatchObject({ status: 'Closed', name: 'Launch v3', site_id: siteId });
    expect((await campaignSeenBy(id, orgId)).campaignName).toBe('Launch v3');
    expect(h.stub.requests.filter((r) => r.id === id)).toEqual([]);
  });

  it('changes nothing twice for a duplicate event', async () => {
    const event = changed('CampaignStatusChanged', { id, orgId, name: 'Launch v4', old: 'Closed', status: 'Paused', at: minutesAgo(5) });
    const eventId = await deliver(event, orgId);
    const applied = await row(id);
    expect(applied).toMatchObject({ status: 'Paused', name: 'Launch v4' });

    // A re-publish within the duplicate window is dropped by JetStream.
    expect((await publisher.publish(event, { id: eventId, orgId })).duplicate).toBe(true);

    // Past the window (shrunk for the test) it is stored and delivered again: the inbox makes it
    // a no-op, counted as a duplicate.
    const before = await processed('duplicate');
    await shrinkDuplicateWindow();
    await eventually(async () => expect((await publisher.publish(event, { id: eventId, orgId })).duplicate).toBe(false), { timeoutMs: 10_000, intervalMs: 200 });
    await eventually(async () => expect(await processed('duplicate')).toBeGreaterThan(before));

    // The same change under another id (not something the inbox can catch) is no newer than
    // what was applied, so it changes nothing either.
    await deliver(event, orgId);
    expect(await row(id)).toEqual(applied);
  });
});

async function shrinkDuplicateWindow(): Promise<void> {
  const jsm = await jetstreamManager(publisher.nc);
  await jsm.streams.update(h.stream, { duplicate_window: nanos(500) });
}

describe('order and the read-through', () => {
  it('keeps a status that arrived before CampaignCreated', async () => {
    const orgId = randomUUID();
    const id = randomUUID();
    const siteId = randomUUID();
    await deliver(changed('CampaignLaunched', { id, orgId, name: 'Renamed at launch', old: 'Draft', status: 'Active', at: minutesAgo(5) }), orgId);
    // Known only by its status so far: not yet usable (no site), so not answered from the directory.
    expect(await row(id)).toMatchObject({ status: 'Active', site_id: null });
    await deliver(created({ id, orgId, siteId, name: 'Draft name', status: 'Draft', at: minutesAgo(10) }), orgId);
    expect(await row(id)).toMatchObject({ status: 'Active', name: 'Renamed at launch', site_id: siteId, site_name: 'shop.example.com' });
    expect(await campaignSeenBy(id, orgId)).toEqual({ campaignName: 'Renamed at launch', siteId, siteName: 'shop.example.com' });
    expect(h.stub.requests.filter((r) => r.id === id)).toEqual([]);
  });

  it('counts a read-through as fresh: an older event does not overwrite it, a newer one does', async () => {
    const orgId = randomUUID();
    const campaign = h.stub.add(orgId, { name: 'As fetched', status: 'Active', createdAt: minutesAgo(60).toISOString() });
    expect((await campaignSeenBy(campaign.id, orgId)).campaignName).toBe('As fetched');
    expect(h.stub.requests.filter((r) => r.id === campaign.id)).toHaveLength(1);

    await deliver(created({ id: campaign.id, orgId, siteId: campaign.siteId, name: 'Old name', status: 'Draft', at: minutesAgo(60) }), orgId);
    await deliver(changed('CampaignLaunched', { id: campaign.id, orgId, name: 'Old name', old: 'Draft', status: 'Active', at: minutesAgo(50) }), orgId);
    expect(await row(campaign.id)).toMatchObject({ name: 'As fetched', status: 'Active' });

    await deliver(changed('CampaignClosed', { id: campaign.id, orgId, name: 'Final name', old: 'Active', status: 'Closed', at: new Date(Date.now() + 1_000) }), orgId);
    expect(await row(campaign.id)).toMatchObject({ name: 'Final name', status: 'Closed' });
    expect((await campaignSeenBy(campaign.id, orgId)).campaignName).toBe('Final name');
    expect(h.stub.requests.filter((r) => r.id === campaign.id)).toHaveLength(1);
  });
});
