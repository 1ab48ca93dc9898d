import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { eventually } from '@preflight/testing';
import { issueCreated } from './events.ts';
import { asAdmin, deliveryLog, deliverySuite, queryRows, signalEndpointChanged } from './harness.ts';

/**
 * Issue 22, finding 8: an endpoint whose secret the webhook service cannot open (a replica or a
 * checkout with the wrong at-rest key) had been left out of the endpoint list, so its events were
 * never delivered and nobody was told. Now the list marks it `secretUnavailable` and its
 * deliveries wait, pending, without an attempt, until the key is back.
 */
const HOLD_MS = 300;
const suite = deliverySuite({ DELIVERY_KEY_HOLD_MS: String(HOLD_MS) });

const statuses = (endpointId: string) => queryRows<{ status: string; attempt_count: number }>(`select status, attempt_count from ${suite.iso.schema}.deliveries where endpoint_id = $1`, [endpointId]);

describe('an endpoint whose secret cannot be decrypted', () => {
  it('keeps its deliveries pending without attempts, failures or disabling, and delivers them once the key is back', async () => {
    const org = randomUUID();
    const receiver = await suite.receiver();
    const healthy = await suite.receiver();
    const held = suite.stub.add(org, receiver.url);
    held.secretUnavailable = true;
    const neighbour = suite.stub.add(org, healthy.url);
    const heldBefore = await suite.h.metric('webhook_deliveries_held_for_key_total', { trigger: 'event' });

    // More events than it takes to disable an endpoint (5 failed deliveries).
    const events = [];
    for (let i = 0; i < 6; i += 1) events.push(await suite.pub.publish(issueCreated(org), { orgId: org }));

    // The neighbour gets every event; the held endpoint nothing, and it is put back several times.
    await eventually(() => expect(healthy.requests).toHaveLength(6), { timeoutMs: 10_000 });
    await eventually(async () => expect(await suite.h.metric('webhook_deliveries_held_for_key_total', { trigger: 'event' })).toBeGreaterThanOrEqual(heldBefore + 12), { timeoutMs: 10_000 });
    expect(receiver.started).toBe(0);
    const rows = await statuses(held.id);
    expect(rows).toHaveLength(6);
    for (const row of rows) expect(row).toEqual({ status: 'pending', attempt_count: 0 });
    // No attempt logged, no outcome reported: nothing counts towards disabling.
    expect(await deliveryLog(suite.h, held.id)).toEqual([]);
    expect(suite.stub.outcomes.filter((o) => o.endpointId === held.id)).toEqual([]);
    expect(suite.stub.endpoints.get(held.id)).toMatchObject({ isEnabled: true, consecutiveFailures: 0 });

    // The key is back (the webhook service restarted with it): every held event is delivered, signed.
    held.secretUnavailable = false;
    await signalEndpointChanged(suite.iso.prefix, { orgId: org, endpointId: held.id });
    await eventually(() => expect(receiver.requests).toHaveLength(6), { timeoutMs: 10_000 });
    const verifier = new Webhook(`whsec_${held.secret}`);
    const delivered = receiver.requests.map((r) => (verifier.verify(r.body.toString('utf8'), r.headers as Record<string, string>) as { id: string }).id);
    expect(delivered.sort()).toEqual([...events].sort());
    // Each as a first attempt: the hold used none of the three.
    const log = await eventually(async () => {
      const entries = await deliveryLog(suite.h, held.id);
      expect(entries).toHaveLength(6);
      return entries;
    });
    for (const entry of log) expect(entry).toMatchObject({ attempt: 1, outcome: 'delivered', trigger: 'event' });
    await eventually(async () => expect(await statuses(held.id)).toEqual([]));
    expect(neighbour.consecutiveFailures).toBe(0);
  });

  it('holds an operator test send the same way', async () => {
    const org = randomUUID();
    const receiver = await suite.receiver();
    const held = suite.stub.add(org, receiver.url);
    held.secretUnavailable = true;
    const before = await suite.h.metric('webhook_deliveries_held_for_key_total', { trigger: 'test' });
    const sent = await suite.h.call('POST', `/admin/v1/webhooks/${held.id}/test`, { as: asAdmin, body: { eventType: 'IssueCreated' } });
    expect(sent.status).toBe(202);
    await eventually(async () => expect(await suite.h.metric('webhook_deliveries_held_for_key_total', { trigger: 'test' })).toBeGreaterThan(before + 1), { timeoutMs: 10_000 });
    expect(receiver.started).toBe(0);
    expect(await statuses(held.id)).toEqual([{ status: 'pending', attempt_count: 0 }]);

    held.secretUnavailable = false;
    await eventually(() => expect(receiver.requests).toHaveLength(1), { timeoutMs: 10_000 });
    expect(receiver.requests[0]!.headers['x-service-delivery']).toBe(sent.body.deliveryId);
  });
});
