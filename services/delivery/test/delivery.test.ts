import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent, toTimestamp } from '@preflight/events';
import { eventually } from '@preflight/testing';
import { at, campaignEvent, issueCreated, issueStatusChanged } from './events.ts';
import {
  asAdmin,
  asKey,
  cleanup,
  databaseClient,
  deliveryLog,
  deliveryLogOf,
  eventPublisher,
  isolation,
  queryRows,
  startDelivery,
  startReceiver,
  startWebhookStub,
  type DeliveryHarness,
  type Publisher,
  type Receiver,
  type WebhookStub,
} from './harness.ts';

const iso = isolation();
let stub: WebhookStub;
let h: DeliveryHarness;
let pub: Publisher;
const receivers: Receiver[] = [];

const receiver = async (...args: Parameters<typeof startReceiver>) => {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
};

beforeAll(async () => {
  stub = await startWebhookStub();
  // Names ending in .test resolve to loopback here: the connection must go to that checked address.
  h = await startDelivery(iso, stub.url, {}, async (host) => (host.endsWith('.test') ? [{ address: '127.0.0.1', family: 4 }] : lookup(host, { all: true })));
  pub = await eventPublisher(iso.prefix);
});

afterAll(async () => {
  await pub?.close();
  await h?.stop();
  await stub?.close();
  for (const r of receivers) await r.close();
  await cleanup(iso);
});

/** The independent check of X-Service-Signature (spec 6.4), with node:crypto only. */
function validServiceSignature(secret: string, body: Buffer, header: string | string[] | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')}`);
  const got = Buffer.from(String(header));
  return got.length === expected.length && timingSafeEqual(got, expected);
}

/** Which of these events the fan-out recorded in its inbox. */
async function inboxRows(eventIds: string[]): Promise<string[]> {
  const rows = await queryRows<{ event_id: string }>(`select event_id from "${iso.schema}".inbox where event_id = any($1::text[])`, [eventIds]);
  return rows.map((x) => x.event_id);
}

const log = (endpointId: string, query = '') => deliveryLog(h, endpointId, query);
const logOf = (endpointId: string, n: number) => deliveryLogOf(h, endpointId, n);

describe('delivery format', () => {
  it('delivers every emitted event type with its envelope, headers and both signatures', async () => {
    const org = randomUUID();
    const r = await receiver();
    const endpoint = stub.add(org, r.url);
    const campaignId = randomUUID();
    const issueId = randomUUID();
    const cases = [
      { event: issueCreated(org, campaignId, issueId), eventType: 'IssueCreated', data: { issueId, campaignId, title: 'Checkout fails', severity: 'High', type: 'Bug', status: 'New', pageUrl: 'https://shop.example.com/checkout' } },
      ...([
        ['New', 'Acknowledged', 'IssueUpdated'],
        ['Acknowledged', 'InProgress', 'IssueUpdated'],
        ['InProgress', 'Fixed', 'IssueUpdated'],
        ['Fixed', 'RetestRequested', 'RetestRequested'],
        ['RetestRequested', 'RetestFixed', 'RetestCompleted'],
        ['RetestRequested', 'RetestFailed', 'RetestCompleted'],
        ['RetestFixed', 'Closed', 'IssueClosed'],
        ['New', 'WontFix', 'IssueClosed'],
        ['New', 'Duplicate', 'IssueClosed'],
        ['Closed', 'New', 'IssueUpdated'],
      ] as const).map(([from, to, eventType]) => ({
        event: issueStatusChanged(org, from, to, campaignId, issueId),
        eventType,
        data: { issueId, campaignId, title: 'Checkout fails', oldStatus: from, newStatus: to, reason: `to ${to}` },
      })),
      { event: campaignEvent('CampaignLaunched', org, 'Draft', 'Active', campaignId), eventType: 'CampaignLaunched', data: { campaignId, name: 'Spring launch', status: 'Active' } },
      { event: campaignEvent('CampaignClosed', org, 'Active', 'Closed', campaignId), eventType: 'CampaignClosed', data: { campaignId, name: 'Spring launch', status: 'Closed' } },
    ];
    // Domain events without a public event: nothing is delivered for them.
    const silentOnes = [
      campaignEvent('CampaignStatusChanged', org, 'Active', 'Paused', campaignId),
      createEvent('CampaignCreated', { campaignId, orgId: org, siteId: randomUUID(), status: 'Draft', createdAt: toTimestamp(at) }),
      createEvent('IssueAssigned', { issueId, orgId: org, campaignId, assigneeName: 'Bo', occurredAt: toTimestamp(at), revision: 3 }),
    ];
    const before = await h.metric('consumer_processed_total', { consumer: 'delivery-fanout', outcome: 'success' });
    const skippedBefore = await h.metric('consumer_processed_total', { consumer: 'delivery-fanout', outcome: 'skipped' });
    const ids = new Map<string, (typeof cases)[number]>();
    for (const c of cases) ids.set(await pub.publish(c.event, { orgId: org }), c);
    for (const e of silentOnes) await pub.publish(e, { orgId: org });

    await eventually(() => expect(r.requests).toHaveLength(cases.length), { timeoutMs: 15_000 });
    await eventually(async () => {
      expect(await h.metric('consumer_processed_total', { consumer: 'delivery-fanout', outcome: 'success' })).toBeGreaterThanOrEqual(before + cases.length);
      // No public envelope: acked without a transaction.
      expect(await h.metric('consumer_processed_total', { consumer: 'delivery-fanout', outcome: 'skipped' })).toBeGreaterThanOrEqual(skippedBefore + silentOnes.length);
    });

    for (const req of r.requests) {
      const envelope = JSON.parse(req.body.toString('utf8'));
      const expected = ids.get(envelope.id);
      expect(expected, `an envelope id that is an event id: ${envelope.id}`).toBeDefined();
      expect(envelope).toEqual({ id: envelope.id, eventType: expected!.eventType, occurredAt: at.toISOString(), data: expected!.data });
      expect(req.path).toBe('/hooks?token=abc');
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['user-agent']).toBe('Preflight-Webhooks/1.0');
      expect(req.headers['x-service-event']).toBe(expected!.eventType);
      expect(req.headers['x-service-delivery']).toMatch(/^[0-9a-f-]{36}$/);
      expect(validServiceSignature(endpoint.secret, req.body, req.headers['x-service-signature'])).toBe(true);
      expect(validServiceSignature(endpoint.secret + 'x', req.body, req.headers['x-service-signature'])).toBe(false);
      // Standard Webhooks, verified by the reference library.
      expect(req.headers['webhook-id']).toBe(envelope.id);
      expect(Math.abs(Number(req.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      const verified = new Webhook(`whsec_${endpoint.secret}`).verify(req.body.toString('utf8'), req.headers as Record<string, string>);
      expect(verified).toEqual(envelope);
      expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(req.body.toString('utf8'), req.headers as Record<string, string>)).toThrow();
    }
    expect(new Set(r.requests.map((q) => q.headers['x-service-delivery'])).size).toBe(cases.length);
    // Still only the public ones, once each, after every event was fanned out.
    expect(r.requests).toHaveLength(cases.length);
    await logOf(endpoint.id, cases.length);
  });

  it('delivers only the subscribed events to a filtered endpoint', async () => {
    const org = randomUUID();
    const createdOnly = await receiver();
    const everything = await receiver();
    stub.add(org, createdOnly.url, ['IssueCreated']);
    stub.add(org, everything.url);
    await pub.publish(issueStatusChanged(org, 'New', 'Acknowledged'), { orgId: org });
    await pub.publish(issueCreated(org), { orgId: org });
    await eventually(() => expect(everything.requests).toHaveLength(2));
    await eventually(() => expect(createdOnly.requests).toHaveLength(1));
    expect(createdOnly.requests[0]!.headers['x-service-event']).toBe('IssueCreated');
    expect(createdOnly.requests).toHaveLength(1);
  });

  it('acks an event that no endpoint receives without an inbox row, and records one for an event it fans out', async () => {
    const lonely = randomUUID();
    const org = randomUUID();
    const r = await receiver();
    stub.add(org, r.url, ['IssueCreated']);
    const skippedBefore = await h.metric('consumer_processed_total', { consumer: 'delivery-fanout', outcome: 'skipped' });
    const nobody = await pub.publish(issueCreated(lonely), { orgId: lonely });
    // The endpoint takes IssueCreated only: a status change of its organisation reaches nobody either.
    const filteredOut = await pub.publish(issueStatusChanged(org, 'New', 'Acknowledged'), { orgId: org });
    const delivered = await pub.publish(issueCreated(org), { orgId: org });
    await eventually(() => expect(r.requests).toHaveLength(1));
    await eventually(async () => expect(await h.metric('consumer_processed_total', { consumer: 'delivery-fanout', outcome: 'skipped' })).toBeGreaterThanOrEqual(skippedBefore + 2));
    // The request may come before its fan-out transaction commits (attempts start early).
    await eventually(async () => expect(await inboxRows([nobody, filteredOut, delivered])).toEqual([delivered]));
    expect(JSON.parse(r.requests[0]!.body.toString('utf8')).id).toBe(delivered);
  });

  it('connects to the address it checked and keeps the URL host name', async () => {
    const org = randomUUID();
    const r = await receiver();
    stub.add(org, `http://receiver.test:${r.port}/in`);
    await pub.publish(issueCreated(org), { orgId: org });
    await eventually(() => expect(r.requests).toHaveLength(1));
    expect(r.requests[0]!.headers.host).toBe(`receiver.test:${r.port}`);
  });
});

describe('endpoint cache and batched outcomes', () => {
  it('asks the webhook service about an organisation once per TTL, not per event or attempt, and reports every outcome (a run of successes as one)', async () => {
    const org = randomUUID();
    const a = await receiver();
    const b = await receiver();
    const ea = stub.add(org, a.url);
    const eb = stub.add(org, b.url);
    const started = Date.now();
    const callsBefore = stub.calls.outcomes;
    await Promise.all(Array.from({ length: 20 }, () => pub.publish(issueCreated(org), { orgId: org })));
    await eventually(() => expect(a.requests.length + b.requests.length).toBe(40));
    // Every delivery is logged delivered and reported: none is left in the table (a final one
    // stays there, unreported, until its outcome is reported).
    // A delivery delivered at its first attempt never has a row, and its attempt is logged by
    // its event's fan-out transaction: the log is awaited, not implied by the empty table.
    await eventually(async () => expect([...(await rowsOf(ea.id)), ...(await rowsOf(eb.id))]).toEqual([]));
    for (const e of [ea, eb]) await eventually(async () => expect((await log(e.id)).map((x: { outcome: string }) => x.outcome)).toEqual(Array(20).fill('delivered')));
    // The webhook service heard each endpoint's successes, a run of them as one: per call, at
    // most one success per endpoint (a success after a success changes nothing there).
    const heard = stub.outcomes.filter((o) => o.endpointId === ea.id || o.endpointId === eb.id);
    expect(heard.every((o) => o.delivered)).toBe(true);
    expect(new Set(heard.map((o) => o.endpointId))).toEqual(new Set([ea.id, eb.id]));
    expect(heard.length).toBeLessThanOrEqual(2 * (stub.calls.outcomes - callsBefore));
    const windows = Math.ceil((Date.now() - started) / 2_000) + 1;
    expect(stub.listed.filter((o) => o === org).length).toBeLessThanOrEqual(windows);
    expect(stub.calls.outcome).toBe(0);
  });
});

/** The endpoint's deliveries still in the table (those with something left to do). */
const rowsOf = (endpointId: string) =>
  queryRows<{ status: string }>(
    `select status from "${iso.schema}".deliveries where endpoint_id = $1 order by created_at`,
    [endpointId],
  );

describe('outcome reports', () => {
  it('reports an outcome as the attempt is recorded, and later when the webhook service refused it then; a done delivery leaves only its attempts', async () => {
    const org = randomUUID();
    const r = await receiver();
    const endpoint = stub.add(org, r.url);
    await pub.publish(issueCreated(org), { orgId: org });
    // The attempt is logged and the delivery row deleted in one statement, after the report.
    await logOf(endpoint.id, 1);
    expect(stub.outcomes.filter((o) => o.endpointId === endpoint.id)).toEqual([{ endpointId: endpoint.id, delivered: true }]);
    expect(await rowsOf(endpoint.id)).toEqual([]);

    stub.failOutcomeCalls = 1;
    await pub.publish(issueCreated(org), { orgId: org });
    // The inline report failed: the attempt is logged and the delivery kept, final and
    // unreported, for the outcome reporter, which reports it and then deletes it.
    await logOf(endpoint.id, 2);
    await eventually(() => expect(stub.outcomes.filter((o) => o.endpointId === endpoint.id)).toHaveLength(2), { timeoutMs: 10_000 });
    expect(stub.failOutcomeCalls).toBe(0);
    await eventually(async () => expect(await rowsOf(endpoint.id)).toEqual([]));
    expect((await log(endpoint.id)).map((e: { outcome: string }) => e.outcome)).toEqual(['delivered', 'delivered']);
  });
});

describe('retries', () => {
  it('retries on the schedule with a new X-Service-Delivery and the same envelope id, then reports once', async () => {
    const org = randomUUID();
    let calls = 0;
    const r = await receiver((_req, res) => {
      calls += 1;
      res.statusCode = calls < 3 ? 500 : 204;
      res.end(calls < 3 ? 'not yet' : undefined);
    });
    const endpoint = stub.add(org, r.url);
    const eventId = await pub.publish(issueCreated(org), { orgId: org });
    await eventually(() => expect(r.requests).toHaveLength(3), { timeoutMs: 10_000 });
    const [a, b, c] = r.requests;
    // Waits of 100 ms then 300 ms, with room for the scheduler and a busy machine.
    expect(b!.at - a!.at).toBeGreaterThanOrEqual(90);
    expect(b!.at - a!.at).toBeLessThan(100 + 700);
    expect(c!.at - b!.at).toBeGreaterThanOrEqual(290);
    expect(c!.at - b!.at).toBeLessThan(300 + 700);
    expect(new Set(r.requests.map((q) => q.headers['x-service-delivery'])).size).toBe(3);
    expect(new Set(r.requests.map((q) => JSON.parse(q.body.toString()).id))).toEqual(new Set([eventId]));
    expect(new Set(r.requests.map((q) => q.headers['webhook-id']))).toEqual(new Set([eventId]));
    expect(r.requests[0]!.body.equals(r.requests[2]!.body)).toBe(true);

    await eventually(() => expect(stub.outcomes.filter((o) => o.endpointId === endpoint.id)).toEqual([{ endpointId: endpoint.id, delivered: true }]));
    const entries = await logOf(endpoint.id, 3);
    expect(entries.map((e) => [e.attempt, e.outcome, e.statusCode, e.responseBody])).toEqual([
      [3, 'delivered', 204, ''],
      [2, 'failed', 500, 'not yet'],
      [1, 'failed', 500, 'not yet'],
    ]);
    // Each entry names its attempt: the X-Service-Delivery that attempt's request carried.
    expect(entries.map((e) => e.deliveryId).reverse()).toEqual(r.requests.map((q) => q.headers['x-service-delivery']));
    expect(entries[0]).toMatchObject({ eventId, eventType: 'IssueCreated', error: null, trigger: 'event' });
    expect(Object.keys(entries[0]).sort()).toEqual(['attempt', 'attemptedAt', 'deliveryId', 'durationMs', 'error', 'eventId', 'eventType', 'outcome', 'responseBody', 'statusCode', 'trigger']);
    expect(entries.map((e) => r.requests.some((q) => q.headers['x-service-delivery'] !== undefined) && typeof e.durationMs)).toEqual(['number', 'number', 'number']);
  });

  it('never follows a redirect: a 302 is a failed attempt and the target is not called', async () => {
    const org = randomUUID();
    const target = await receiver();
    const r = await receiver((_req, res) => {
      res.writeHead(302, { location: target.url });
      res.end();
    });
    const endpoint = stub.add(org, r.url);
    await pub.publish(issueCreated(org), { orgId: org });
    await eventually(() => expect(stub.outcomes.filter((o) => o.endpointId === endpoint.id)).toEqual([{ endpointId: endpoint.id, delivered: false }]), { timeoutMs: 10_000 });
    expect(r.requests).toHaveLength(3);
    expect(target.requests).toHaveLength(0);
    const entries = await logOf(endpoint.id, 3);
    expect(entries.map((e) => [e.outcome, e.statusCode])).toEqual(Array(3).fill(['failed', 302]));
    expect(entries[0].error).toMatch(/redirect/);
  });

  it('keeps the first 2 KB of a response body, cut on a character boundary', async () => {
    const org = randomUUID();
    const r = await receiver((_req, res) => res.end('a' + 'é'.repeat(3000)));
    const endpoint = stub.add(org, r.url);
    await pub.publish(issueCreated(org), { orgId: org });
    const [entry] = await logOf(endpoint.id, 1);
    expect(entry.outcome).toBe('delivered');
    expect(entry.responseBody).toBe('a' + 'é'.repeat(1023));
    expect(Buffer.byteLength(entry.responseBody)).toBeLessThanOrEqual(2048);
  });

  it('logs a response body holding a NUL byte (as U+FFFD), and the attempts recorded beside it still land', async () => {
    const org = randomUUID();
    const nul = await receiver((_req, res) => res.end('ok\u0000done'));
    const plain = await receiver((_req, res) => res.end('fine'));
    const odd = stub.add(org, nul.url);
    const other = stub.add(org, plain.url);
    // Both endpoints' attempts of one event finish together, so they are likely recorded in one statement.
    await pub.publish(issueCreated(org), { orgId: org });
    const [oddEntry] = await logOf(odd.id, 1);
    expect([oddEntry.outcome, oddEntry.responseBody]).toEqual(['delivered', 'ok\uFFFDdone']);
    const [otherEntry] = await logOf(other.id, 1);
    expect([otherEntry.outcome, otherEntry.responseBody]).toEqual(['delivered', 'fine']);
    expect(nul.requests).toHaveLength(1);
  });

  it('cancels a delivery whose endpoint is gone before its next attempt, without reporting an outcome', async () => {
    const org = randomUUID();
    let endpointId = '';
    const r = await receiver((_req, res) => {
      stub.endpoints.delete(endpointId);
      res.statusCode = 503;
      res.end();
    });
    endpointId = stub.add(org, r.url).id;
    await pub.publish(issueCreated(org), { orgId: org });
    const entries = await eventually(async () => {
      const e = await log(endpointId);
      expect(e).toHaveLength(2);
      return e;
    });
    expect(entries.map((e) => [e.attempt, e.outcome])).toEqual([
      [2, 'cancelled'],
      [1, 'failed'],
    ]);
    expect(r.requests).toHaveLength(1);
    expect(await h.metric('webhook_deliveries_total', { event_type: 'IssueCreated', outcome: 'cancelled' })).toBeGreaterThanOrEqual(1);
    expect(stub.outcomes.filter((o) => o.endpointId === endpointId)).toEqual([]);
  });
});

/** Per attempt of the endpoint: whether its event's fan-out transaction wrote it (same xmin as the event's inbox row). */
const writtenByFanout = async (endpointId: string) =>
  (
    await queryRows<{ attempt: number; same: boolean }>(
      `select a.attempt, a.xmin = i.xmin as same
       from "${iso.schema}".delivery_attempts a join "${iso.schema}".inbox i on i.event_id = a.event_id and i.consumer = 'delivery-fanout'
       where a.endpoint_id = $1 order by a.attempted_at`,
      [endpointId],
    )
  ).map((r) => [r.attempt, r.same]);

describe('attempts before their rows', () => {
  it('writes a first attempt that ended before its event was stored in that same transaction, with a row only for what is left to do', async () => {
    const org = randomUUID();
    let calls = 0;
    const r = await receiver((_req, res) => {
      calls += 1;
      // The first delivery fails once (a retry is left to do); the second is delivered at once.
      res.statusCode = calls === 1 ? 503 : 204;
      res.end();
    });
    const endpoint = stub.add(org, r.url);
    await pub.publish(issueCreated(org), { orgId: org });
    await logOf(endpoint.id, 2);
    await pub.publish(issueCreated(org), { orgId: org });
    const entries = await logOf(endpoint.id, 3);
    expect(entries.map((e) => [e.attempt, e.outcome]).reverse()).toEqual([
      [1, 'failed'],
      [2, 'delivered'],
      [1, 'delivered'],
    ]);
    // Both first attempts came with their events' transactions; the retry was claimed and recorded later.
    expect(await writtenByFanout(endpoint.id)).toEqual([
      [1, true],
      [2, false],
      [1, true],
    ]);
    expect(stub.outcomes.filter((o) => o.endpointId === endpoint.id).map((o) => o.delivered)).toEqual([true, true]);
    await eventually(async () => expect(await queryRows(`select id from "${iso.schema}".deliveries where endpoint_id = $1`, [endpoint.id])).toEqual([]));
  });

  it('logs, and only logs, an attempt started early for an event its inbox already had (at least once: sent again, nothing reported or stored)', async () => {
    const org = randomUUID();
    const r = await receiver();
    const endpoint = stub.add(org, r.url);
    // Fanned out long ago (past JetStream's duplicate window), and published again now.
    const eventId = randomUUID();
    await queryRows(`insert into "${iso.schema}".inbox (consumer, event_id) values ('delivery-fanout', $1)`, [eventId]);
    await pub.publish(issueCreated(org), { orgId: org, id: eventId });
    const [entry] = await logOf(endpoint.id, 1);
    expect([entry!.eventId, entry!.attempt, entry!.outcome]).toEqual([eventId, 1, 'delivered']);
    expect(r.requests).toHaveLength(1);
    await eventually(async () => expect(await h.metric('consumer_processed_total', { consumer: 'delivery-fanout', outcome: 'duplicate' })).toBeGreaterThanOrEqual(1));
    expect(await h.metric('webhook_deliveries_unstored')).toBe(0);
    expect(stub.outcomes.filter((o) => o.endpointId === endpoint.id)).toEqual([]);
    expect(await queryRows(`select id from "${iso.schema}".deliveries where endpoint_id = $1`, [endpoint.id])).toEqual([]);
  });

  it('lets a busy endpoint\'s new deliveries wait for its free slots in memory instead of storing them for a claim', async () => {
    const org = randomUUID();
    // 4 requests at a time (the bound), 40 ms each: 20 deliveries take about 200 ms.
    const r = await receiver((_req, res) => {
      setTimeout(() => res.end('ok'), 40);
    });
    const endpoint = stub.add(org, r.url);
    for (let i = 0; i < 20; i += 1) await pub.publish(issueCreated(org), { orgId: org });
    await logOf(endpoint.id, 20);
    // Every one was taken as a slot freed and written with its event: none was stored to wait.
    expect(await writtenByFanout(endpoint.id)).toEqual(Array(20).fill([1, true]));
    expect(r.requests).toHaveLength(20);
  });


  it('sends a new event before its deliveries are stored, and logs the attempt once they are', async () => {
    const org = randomUUID();
    const r = await receiver();
    const endpoint = stub.add(org, r.url);
    // Writes to the deliveries table wait for this lock (reads do not): the fan-out's insert
    // stands still as it would behind a stalled commit.
    const blocker = await databaseClient();
    try {
      await blocker.query('begin');
      await blocker.query(`lock table "${iso.schema}".deliveries in share mode`);
      const eventId = randomUUID();
      await pub.publish(issueCreated(org), { orgId: org, id: eventId });
      await eventually(() => expect(r.requests).toHaveLength(1));
      expect(JSON.parse(r.requests[0]!.body.toString()).id).toBe(eventId);
      // Delivered, but nothing is stored or logged yet: the fan-out's transaction waits.
      expect(await inboxRows([eventId])).toEqual([]);
      expect(await log(endpoint.id)).toEqual([]);
      // Held in memory meanwhile, where the metrics show it (the table's gauges cannot).
      expect(await h.metric('webhook_deliveries_unstored')).toBe(1);
    } finally {
      await blocker.query('rollback');
      await blocker.end();
    }
    const [entry] = await logOf(endpoint.id, 1);
    expect([entry!.attempt, entry!.outcome, entry!.statusCode]).toEqual([1, 'delivered', 200]);
    expect(await h.metric('webhook_deliveries_unstored')).toBe(0);
    // Final and reported: nothing is left in the deliveries table, and it was sent once.
    await eventually(async () => expect(await queryRows(`select id from "${iso.schema}".deliveries where endpoint_id = $1`, [endpoint.id])).toEqual([]));
    expect(r.requests).toHaveLength(1);
  });
});

describe('GET /admin/v1/webhooks/:id/deliveries', () => {
  it('answers the operator only, validates limit, and is empty for an endpoint without deliveries', async () => {
    const id = stub.add(randomUUID(), 'http://127.0.0.1:9/never').id;
    expect((await h.call('GET', `/admin/v1/webhooks/${id}/deliveries`, { as: asKey(randomUUID()) })).status).toBe(403);
    expect((await h.call('GET', `/admin/v1/webhooks/${id}/deliveries`)).status).toBe(401);
    for (const bad of ['0', '201', 'abc', '-1', '1.5']) {
      const res = await h.call('GET', `/admin/v1/webhooks/${id}/deliveries?limit=${bad}`, { as: asAdmin });
      expect(res.status, bad).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual(['limit']);
    }
    expect((await h.call('GET', `/admin/v1/webhooks/not-a-uuid/deliveries`, { as: asAdmin })).status).toBe(404);
    const empty = await h.call('GET', `/admin/v1/webhooks/${id}/deliveries`, { as: asAdmin });
    expect([empty.status, empty.body]).toEqual([200, []]);
  });

  it('is 404 for an endpoint the webhook service does not know, 503 when it cannot say, and keeps a deleted endpoint\'s history', async () => {
    const unknown = randomUUID();
    const missing = await h.call('GET', `/admin/v1/webhooks/${unknown}/deliveries`, { as: asAdmin });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBe(`No webhook with id '${unknown}' was found.`);

    const org = randomUUID();
    const r = await receiver();
    const endpoint = stub.add(org, r.url);
    await pub.publish(issueCreated(org), { orgId: org });
    await eventually(async () => expect(await log(endpoint.id)).toHaveLength(1));
    stub.endpoints.delete(endpoint.id);
    const lookups = stub.calls.lookup;
    expect((await log(endpoint.id)).map((e) => e.outcome)).toEqual(['delivered']);
    expect(stub.calls.lookup).toBe(lookups); // a log with entries needs no lookup

    stub.down = true;
    try {
      const unsure = await h.call('GET', `/admin/v1/webhooks/${unknown}/deliveries`, { as: asAdmin });
      expect(unsure.status).toBe(503);
      expect(unsure.body.detail).toContain('webhook service is unavailable');
    } finally {
      stub.down = false;
    }
  });

  it('pages with limit, newest first', async () => {
    const org = randomUUID();
    const r = await receiver();
    const endpoint = stub.add(org, r.url);
    for (let i = 0; i < 3; i += 1) await pub.publish(issueCreated(org), { orgId: org });
    await eventually(async () => expect(await log(endpoint.id)).toHaveLength(3));
    const two = await log(endpoint.id, '?limit=2');
    expect(two).toHaveLength(2);
    const all = await log(endpoint.id);
    expect(all.map((e) => e.attemptedAt)).toEqual([...all.map((e) => e.attemptedAt)].sort().reverse());
  });

  it('exposes the delivery metrics', async () => {
    await eventually(async () => expect(await h.metric('webhook_deliveries_total', { event_type: 'IssueCreated', outcome: 'delivered' })).toBeGreaterThan(0));
    expect(await h.metric('webhook_delivery_attempts_total', { event_type: 'IssueCreated', outcome: 'failed' })).toBeGreaterThan(0);
    expect(await h.metric('webhook_delivery_attempt_duration_seconds_count')).toBeGreaterThan(0);
    const text = await (await fetch(`${h.base}/metrics`)).text();
    for (const name of ['webhook_deliveries_pending', 'webhook_deliveries_due_late', 'webhook_deliveries_unstored', 'delivery_circuit_breakers_open', 'webhook_endpoints_auto_disabled_total']) {
      expect(text).toMatch(new RegExp(`^${name}(\\{[^}]*\\})? \\d+`, 'm'));
    }
  });
});
