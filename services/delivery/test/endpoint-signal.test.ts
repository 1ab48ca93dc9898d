import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { endpointsChangedSubject } from '@preflight/events';
import { TEST_NATS_URL, eventually } from '@preflight/testing';
import { issueCreated } from './events.ts';
import { cleanup, eventPublisher, isolation, startDelivery, startReceiver, startWebhookStub, type DeliveryHarness, type Publisher, type Receiver, type WebhookStub } from './harness.ts';

// With a cache TTL far longer than the test, only the webhook service's signal can make the
// delivery service see an endpoint created after it cached "no endpoints" for the organisation.
const iso = isolation();
let stub: WebhookStub;
let h: DeliveryHarness;
let pub: Publisher;
let nc: NatsConnection;
let r: Receiver;

beforeAll(async () => {
  stub = await startWebhookStub();
  h = await startDelivery(iso, stub.url, { DELIVERY_ENDPOINT_CACHE_TTL_MS: '60000' });
  pub = await eventPublisher(iso.prefix);
  nc = await connect({ servers: TEST_NATS_URL });
  r = await startReceiver();
});
afterAll(async () => {
  await nc?.close();
  await pub?.close();
  await h?.stop();
  await stub?.close();
  await r?.close();
  await cleanup(iso);
});

it('sees a new endpoint at once when the endpoint-change signal arrives, despite a cached empty list', async () => {
  const org = randomUUID();
  const before = await pub.publish(issueCreated(org), { orgId: org });
  await eventually(() => expect(stub.listed.filter((o) => o === org)).toHaveLength(1));

  stub.add(org, r.url);
  nc.publish(endpointsChangedSubject(iso.prefix), org);
  await nc.flush();
  // A signal for another organisation leaves this one's cache alone (and vice versa).
  nc.publish(endpointsChangedSubject(iso.prefix), randomUUID());
  await nc.flush();

  const after = await pub.publish(issueCreated(org), { orgId: org });
  await eventually(() => expect(r.requests.map((q) => JSON.parse(q.body.toString()).id)).toEqual([after]));
  expect(after).not.toBe(before);
  expect(stub.listed.filter((o) => o === org)).toHaveLength(2);
});
