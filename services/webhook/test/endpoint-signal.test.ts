import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decodeEndpointsChanged, endpointsChangedSubject } from '@preflight/events';
import { TEST_NATS_URL } from '@preflight/testing';
import { PUBLIC_URL, asAdmin, asKey, startHarness, type Harness } from './harness.ts';

// Every change to an organisation's endpoints is signalled on core NATS before the answer, so
// the delivery service's endpoint cache drops the organisation at once (docs/webhooks.md).
let h: Harness;
let nc: NatsConnection;
let sub: Subscription;
/** The payloads as sent (JSON), in order. */
const signalled: unknown[] = [];

beforeAll(async () => {
  h = await startHarness();
  nc = await connect({ servers: TEST_NATS_URL });
  sub = nc.subscribe(endpointsChangedSubject(h.subjectPrefix), { callback: (_err, msg) => void signalled.push(JSON.parse(msg.string())) });
  await nc.flush();
});
afterAll(async () => {
  sub?.unsubscribe();
  await nc?.close();
  await h?.close();
});

it('signals create, re-enable, rotation and delete with the organisation and endpoint, and nothing for a refused change', async () => {
  const org = randomUUID();
  const created = await h.call('POST', '/api/v1/webhooks', { as: asKey(org), body: { url: PUBLIC_URL } });
  expect(created.status).toBe(201);
  const endpointId = created.body.id;
  // The answer comes after the server took the signal; a round trip through it delivers it here.
  await nc.flush();
  expect(signalled).toEqual([{ orgId: org, endpointId }]);

  const dashboard = randomUUID();
  const viaAdmin = await h.call('POST', `/admin/v1/organizations/${dashboard}/webhooks`, { as: asAdmin, body: { url: PUBLIC_URL } });
  expect(viaAdmin.status).toBe(201);
  expect((await h.call('POST', `/admin/v1/webhooks/${endpointId}/enable`, { as: asAdmin })).status).toBe(200);
  expect((await h.call('POST', `/admin/v1/webhooks/${endpointId}/secret/rotate`, { as: asAdmin, body: {} })).status).toBe(200);
  expect((await h.call('DELETE', `/api/v1/webhooks/${endpointId}`, { as: asKey(org) })).status).toBe(204);
  await nc.flush();
  const expected = [
    { orgId: org, endpointId },
    { orgId: dashboard, endpointId: viaAdmin.body.id },
    // Re-enabling also resets every delivery replica's breaker for the endpoint.
    { orgId: org, endpointId, reset: true },
    { orgId: org, endpointId },
    { orgId: org, endpointId },
  ];
  expect(signalled).toEqual(expected);

  // The delivery service's decoder reads each payload as sent.
  for (const payload of signalled) expect(decodeEndpointsChanged(JSON.stringify(payload))).toEqual(payload);

  // Refused: invalid body, another organisation's endpoint, unknown endpoints, a bad grace.
  expect((await h.call('POST', '/api/v1/webhooks', { as: asKey(org), body: { url: 'nope' } })).status).toBe(422);
  expect((await h.call('DELETE', `/api/v1/webhooks/${viaAdmin.body.id}`, { as: asKey(org) })).status).toBe(404);
  expect((await h.call('POST', `/admin/v1/webhooks/${randomUUID()}/enable`, { as: asAdmin })).status).toBe(404);
  expect((await h.call('POST', `/admin/v1/webhooks/${endpointId}/secret/rotate`, { as: asAdmin, body: {} })).status).toBe(404);
  expect((await h.call('POST', `/admin/v1/webhooks/${viaAdmin.body.id}/secret/rotate`, { as: asAdmin, body: { graceHours: 73 } })).status).toBe(422);
  await nc.flush();
  expect(signalled).toEqual(expected);
});
