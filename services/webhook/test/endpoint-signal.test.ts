import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { endpointsChangedSubject } from '@preflight/events';
import { TEST_NATS_URL } from '@preflight/testing';
import { PUBLIC_URL, asAdmin, asKey, startHarness, type Harness } from './harness.ts';

// Every change to an organisation's endpoints is signalled on core NATS before the answer, so
// the delivery service's endpoint cache drops the organisation at once (docs/webhooks.md).
let h: Harness;
let nc: NatsConnection;
let sub: Subscription;
const signalled: string[] = [];

beforeAll(async () => {
  h = await startHarness();
  nc = await connect({ servers: TEST_NATS_URL });
  sub = nc.subscribe(endpointsChangedSubject(h.subjectPrefix), { callback: (_err, msg) => void signalled.push(msg.string()) });
  await nc.flush();
});
afterAll(async () => {
  sub?.unsubscribe();
  await nc?.close();
  await h?.close();
});

it('signals create, re-enable and delete with the organisation id, and nothing for a refused change', async () => {
  const org = randomUUID();
  const created = await h.call('POST', '/api/v1/webhooks', { as: asKey(org), body: { url: PUBLIC_URL } });
  expect(created.status).toBe(201);
  // The answer comes after the server took the signal; a round trip through it delivers it here.
  await nc.flush();
  expect(signalled).toEqual([org]);

  const dashboard = randomUUID();
  const viaAdmin = await h.call('POST', `/admin/v1/organizations/${dashboard}/webhooks`, { as: asAdmin, body: { url: PUBLIC_URL } });
  expect(viaAdmin.status).toBe(201);
  expect((await h.call('POST', `/admin/v1/webhooks/${created.body.id}/enable`, { as: asAdmin })).status).toBe(200);
  expect((await h.call('DELETE', `/api/v1/webhooks/${created.body.id}`, { as: asKey(org) })).status).toBe(204);
  await nc.flush();
  expect(signalled).toEqual([org, dashboard, org, org]);

  // Refused: invalid body, another organisation's endpoint.
  expect((await h.call('POST', '/api/v1/webhooks', { as: asKey(org), body: { url: 'nope' } })).status).toBe(422);
  expect((await h.call('DELETE', `/api/v1/webhooks/${viaAdmin.body.id}`, { as: asKey(org) })).status).toBe(404);
  await nc.flush();
  expect(signalled).toEqual([org, dashboard, org, org]);
});
