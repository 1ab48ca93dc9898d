import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EndpointStatsAnswerSchema } from '@preflight/contract';
import { sampleEnvelope } from '@preflight/events';
import { eventually } from '@preflight/testing';
import { newAttemptId } from '../src/domain/ids.ts';
import { cancelWaiting } from '../src/storage/waiting-deliveries.ts';
import { issueCreated } from './events.ts';
import { asAdmin, asKey, deliveryLog, deliveryLogOf, deliverySuite, queryRows, type Receiver } from './harness.ts';

// The operator's sends (admin-api-v1.md, "Webhook settings and delivery logs"): redeliver,
// recover and test go through the same scheduler, signatures and log as events do.
const suite = deliverySuite();
const { receiver } = suite;

const post = (path: string, body?: unknown, as = asAdmin) => suite.h.call('POST', path, { as, ...(body !== undefined ? { body } : {}) });
const outcomesOf = (id: string) => suite.stub.outcomes.filter((o) => o.endpointId === id);
const envelopeOf = (r: Receiver, i: number) => JSON.parse(r.requests[i]!.body.toString('utf8')) as { id: string; eventType: string; occurredAt: string; data: unknown };

describe('redeliver', () => {
  it('sends a logged attempt\'s envelope again as a new delivery whose first X-Service-Delivery is the id it answers', async () => {
    const org = randomUUID();
    const r = await receiver();
    const endpoint = suite.stub.add(org, r.url);
    const eventId = await suite.pub.publish(issueCreated(org), { orgId: org });
    const [first] = await deliveryLogOf(suite.h, endpoint.id, 1);

    const res = await post(`/admin/v1/webhooks/${endpoint.id}/deliveries/${first.deliveryId}/redeliver`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ eventId, deliveryId: expect.any(String) });
    expect(res.body.deliveryId).not.toBe(first.deliveryId);
    await eventually(() => expect(r.requests).toHaveLength(2));
    expect(r.requests[1]!.body.equals(r.requests[0]!.body)).toBe(true);
    expect(r.requests[1]!.headers['x-service-delivery']).toBe(res.body.deliveryId);
    expect(r.requests[1]!.headers['webhook-id']).toBe(eventId);
    const entries = await deliveryLogOf(suite.h, endpoint.id, 2);
    expect(entries[0]).toMatchObject({ deliveryId: res.body.deliveryId, eventId, attempt: 1, outcome: 'delivered', trigger: 'redeliver' });
    expect(entries[1]).toMatchObject({ deliveryId: first.deliveryId, trigger: 'event' });
  });

  it('is 404 for an attempt the endpoint\'s log does not hold, 409 while the endpoint is disabled, 403 for an API key', async () => {
    const org = randomUUID();
    const r = await receiver();
    const endpoint = suite.stub.add(org, r.url);
    const other = suite.stub.add(org, r.url);
    await suite.pub.publish(issueCreated(org), { orgId: org });
    const [entry] = await deliveryLogOf(suite.h, endpoint.id, 1);
    const path = (id: string, attempt: string) => `/admin/v1/webhooks/${id}/deliveries/${attempt}/redeliver`;

    expect((await post(path(endpoint.id, randomUUID()))).status).toBe(404);
    expect((await post(path(other.id, entry.deliveryId))).status).toBe(404);
    expect((await post(path(endpoint.id, 'not-an-id'))).status).toBe(404);
    expect((await post(path(endpoint.id, entry.deliveryId), undefined, asKey(org))).status).toBe(403);
    suite.stub.endpoints.get(endpoint.id)!.isEnabled = false;
    const disabled = await post(path(endpoint.id, entry.deliveryId));
    expect(disabled.status).toBe(409);
    expect(disabled.body.detail).toContain('disabled');
    await eventually(() => expect(r.requests).toHaveLength(2));
    expect(await deliveryLog(suite.h, endpoint.id)).toHaveLength(1);
  });
});

describe('recover', () => {
  it('sends again every event whose delivery failed since the given time, once', async () => {
    const org = randomUUID();
    let failing = true;
    const r = await receiver((_req, res) => {
      res.statusCode = failing ? 500 : 204;
      res.end();
    });
    const endpoint = suite.stub.add(org, r.url);
    const since = new Date(Date.now() - 1000).toISOString();
    const events = [];
    for (let i = 0; i < 3; i += 1) events.push(await suite.pub.publish(issueCreated(org), { orgId: org }));
    await eventually(() => expect(outcomesOf(endpoint.id).map((o) => o.delivered)).toEqual([false, false, false]), { timeoutMs: 10_000 });
    await deliveryLogOf(suite.h, endpoint.id, 9);

    failing = false;
    const res = await post(`/admin/v1/webhooks/${endpoint.id}/recover`, { since });
    expect(res).toMatchObject({ status: 202, body: { count: 3 } });
    await eventually(() => expect(r.requests).toHaveLength(12));
    expect(new Set(r.requests.slice(9).map((q) => q.headers['webhook-id']))).toEqual(new Set(events));
    const entries = await deliveryLogOf(suite.h, endpoint.id, 12);
    expect(entries.slice(0, 3).map((e: { trigger: string; outcome: string }) => [e.trigger, e.outcome])).toEqual(Array(3).fill(['recover', 'delivered']));
    // Delivered since: nothing is left to recover.
    expect(await post(`/admin/v1/webhooks/${endpoint.id}/recover`, { since })).toMatchObject({ status: 202, body: { count: 0 } });
  });

  it('refuses a since that is not a date-time, in the future or over 30 days back (422), and a disabled endpoint (409)', async () => {
    const endpoint = suite.stub.add(randomUUID(), (await receiver()).url);
    const path = `/admin/v1/webhooks/${endpoint.id}/recover`;
    for (const since of ['yesterday', 42, new Date(Date.now() + 60_000).toISOString(), new Date(Date.now() - 31 * 86_400_000).toISOString()]) {
      const res = await post(path, { since });
      expect(res.status).toBe(422);
      expect(res.body.errors.since).toHaveLength(1);
    }
    expect((await post(path, {})).status).toBe(422);
    expect((await post(`/admin/v1/webhooks/${randomUUID()}/recover`, { since: new Date().toISOString() })).status).toBe(404);
    suite.stub.endpoints.get(endpoint.id)!.isEnabled = false;
    expect((await post(path, { since: new Date().toISOString() })).status).toBe(409);
  });
});

describe('test send', () => {
  it('sends the event\'s sample with a fresh id through the pipeline, to a disabled endpoint whatever its filter, and never reports its outcome', async () => {
    const org = randomUUID();
    const r = await receiver((_req, res) => {
      res.statusCode = 500;
      res.end('not ready');
    });
    const endpoint = suite.stub.add(org, r.url, ['CampaignClosed']);
    suite.stub.endpoints.get(endpoint.id)!.isEnabled = false;
    const res = await post(`/admin/v1/webhooks/${endpoint.id}/test`, { eventType: 'IssueCreated' });
    expect(res).toMatchObject({ status: 202, body: { eventId: expect.any(String), deliveryId: expect.any(String) } });
    // Retried like any delivery: three attempts.
    await eventually(() => expect(r.requests).toHaveLength(3), { timeoutMs: 10_000 });
    const sent = envelopeOf(r, 0);
    const sample = sampleEnvelope('IssueCreated')!;
    expect(sent).toEqual({ ...sample, id: res.body.eventId, occurredAt: expect.any(String) });
    expect(sent.id).not.toBe(sample.id);
    expect(Math.abs(Date.parse(sent.occurredAt) - Date.now())).toBeLessThan(60_000);
    expect(r.requests[0]!.headers['x-service-delivery']).toBe(res.body.deliveryId);
    const entries = await deliveryLogOf(suite.h, endpoint.id, 3);
    expect(entries.every((e: { trigger: string }) => e.trigger === 'test')).toBe(true);
    expect(outcomesOf(endpoint.id)).toEqual([]);
  });

  it('refuses an event that is not emitted (422) and an unknown endpoint (404)', async () => {
    const endpoint = suite.stub.add(randomUUID(), (await receiver()).url);
    for (const eventType of ['CampaignCreated', 'Nope', undefined]) {
      const res = await post(`/admin/v1/webhooks/${endpoint.id}/test`, { eventType });
      expect(res.status).toBe(422);
      expect(res.body.errors.eventType).toHaveLength(1);
    }
    expect((await post(`/admin/v1/webhooks/${randomUUID()}/test`, { eventType: 'IssueCreated' })).status).toBe(404);
  });
});

describe('endpoint stats', () => {
  it('counts the last 24 hours\' attempts and successes, response times of sent requests, and the last success and failure', async () => {
    const org = randomUUID();
    let calls = 0;
    const r = await receiver((_req, res) => {
      calls += 1;
      res.statusCode = calls === 1 ? 503 : 200;
      res.end();
    });
    const endpoint = suite.stub.add(org, r.url);
    await suite.pub.publish(issueCreated(org), { orgId: org });
    await suite.pub.publish(issueCreated(org), { orgId: org });
    await deliveryLogOf(suite.h, endpoint.id, 3);
    const unknown = randomUUID();
    const res = await suite.h.call('POST', '/internal/v1/endpoint-stats', { body: { ids: [endpoint.id, unknown] } });
    expect(res.status).toBe(200);
    // What the webhook service's client parses (contracts/internal/webhook-to-delivery.json).
    EndpointStatsAnswerSchema.parse(res.body);
    expect(res.body.stats[endpoint.id]).toEqual({
      attempts24h: 3,
      succeeded24h: 2,
      p50Ms: expect.any(Number),
      p99Ms: expect.any(Number),
      lastSuccessAt: expect.any(String),
      lastFailureAt: expect.any(String),
    });
    expect(res.body.stats[unknown]).toEqual({ attempts24h: 0, succeeded24h: 0, p50Ms: null, p99Ms: null, lastSuccessAt: null, lastFailureAt: null });
    expect((await suite.h.call('POST', '/internal/v1/endpoint-stats', { body: { ids: ['x'] } })).status).toBe(422);
  });
});

describe('a disabled endpoint', () => {
  it('has its waiting deliveries cancelled at once, each logged, leaving leased ones to their attempt', async () => {
    const endpoint = suite.stub.add(randomUUID(), 'https://receiver.example/hook');
    const schema = suite.iso.schema;
    // Due in an hour, as a delivery waiting for its next try: the suite's running worker must not take it first.
    const insert = (status: string, lease: string | null) =>
      queryRows(
        `insert into "${schema}".deliveries (id, event_id, event_type, endpoint_id, org_id, url, status, lease_token, next_attempt_at) values ($1, $2, 'IssueCreated', $3, $4, $5, $6, $7, now() + interval '1 hour') returning id`,
        [randomUUID(), randomUUID(), endpoint.id, endpoint.orgId, endpoint.url, status, lease],
      );
    await insert('pending', null);
    await insert('parked', null);
    await insert('pending', randomUUID());
    expect(await cancelWaiting(suite.h.service.database.db, endpoint.id, newAttemptId)).toBe(2);
    const left = await queryRows<{ lease_token: string | null }>(`select lease_token from "${schema}".deliveries where endpoint_id = $1`, [endpoint.id]);
    expect(left).toHaveLength(1);
    expect(left[0]!.lease_token).not.toBeNull();
    const log = await deliveryLog(suite.h, endpoint.id);
    expect(log.map((e: { outcome: string; trigger: string; attempt: number }) => [e.outcome, e.trigger, e.attempt])).toEqual([
      ['cancelled', 'event', 1],
      ['cancelled', 'event', 1],
    ]);
  });
});
