import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ADMIN_ENDPOINTS } from '@preflight/contract';
import type { Caller } from '@preflight/http';
import { answersOf, eventually, memberOf, memberRoutes, OPERATOR, schemaRows, withFreshIds, type ScopeCase } from '@preflight/testing';
import { issueCreated } from './events.ts';
import { deliveryLogOf, deliverySuite, queryRows, type Receiver } from './harness.ts';

/*
 * Console members reach an endpoint's delivery log and sends through the gateway, confined to
 * their organisation: another organisation's endpoint is answered exactly like an unknown id,
 * and nothing is sent or stored (issue 24). Attempts do not carry the organisation; the webhook
 * service (its stand-in here) says whose an endpoint is.
 */

const suite = deliverySuite();

/** An endpoint of an organisation with one delivered attempt in its log. */
interface Fixture {
  orgId: string;
  endpointId: string;
  attemptId: string;
  receiver: Receiver;
}

async function fixture(orgId: string = randomUUID()): Promise<Fixture> {
  const receiver = await suite.receiver();
  const endpoint = suite.stub.add(orgId, receiver.url);
  await suite.pub.publish(issueCreated(orgId), { orgId });
  const [entry] = await deliveryLogOf(suite.h, endpoint.id, 1);
  await settled(endpoint.id);
  return { orgId, endpointId: endpoint.id, attemptId: entry.deliveryId, receiver };
}

/** Until the endpoint's deliveries are all reported (and so gone from the queue): the scheduler leaves its rows alone. */
const settled = (endpointId: string) =>
  eventually(async () => expect(await queryRows(`select id from ${suite.iso.schema}.deliveries where endpoint_id = $1`, [endpointId])).toEqual([]));

const post = (path: string, as: Caller, body?: unknown) => suite.h.call('POST', path, { as, ...(body !== undefined ? { body } : {}) });

const CASES: Array<ScopeCase<Fixture>> = [
  { route: 'adminListDeliveries', call: (f, as) => suite.h.call('GET', `/admin/v1/webhooks/${f.endpointId}/deliveries`, { as }), ok: 200 },
  { route: 'adminRedeliver', call: (f, as) => post(`/admin/v1/webhooks/${f.endpointId}/deliveries/${f.attemptId}/redeliver`, as), ok: 202 },
  { route: 'adminRecoverWebhook', call: (f, as) => post(`/admin/v1/webhooks/${f.endpointId}/recover`, as, { since: new Date(Date.now() - 60_000).toISOString() }), ok: 202 },
  { route: 'adminTestWebhook', call: (f, as) => post(`/admin/v1/webhooks/${f.endpointId}/test`, as, { eventType: 'IssueCreated' }), ok: 202 },
];

describe('admin delivery routes for console members', () => {
  it('covers every delivery route members may call (the manifest)', () => {
    expect(CASES.map((c) => c.route).sort()).toEqual(memberRoutes(ADMIN_ENDPOINTS, 'delivery'));
  });

  it('answers a member of another organisation exactly as for an unknown webhook, on every route, and sends and stores nothing', async () => {
    const f = await fixture();
    const before = await schemaRows(suite.iso.schema);
    const outsider = memberOf(randomUUID(), 'Owner');
    const answers = await answersOf(CASES, f, outsider);
    expect(answers.map((a) => [a.route, a.status, a.problem?.detail])).toEqual(CASES.map((c) => [c.route, 404, "No webhook with id '<id>' was found."]));
    expect(answers).toEqual(await answersOf(CASES, withFreshIds(f), outsider));
    expect(await schemaRows(suite.iso.schema)).toEqual(before);
    expect(f.receiver.requests).toHaveLength(1);
  });

  it('serves a member of the organisation and the operator on every route', async () => {
    const mine = await fixture();
    const operators = await fixture();
    const served = CASES.map((c) => [c.route, c.ok]);
    expect((await answersOf(CASES, mine, memberOf(mine.orgId, 'Admin'))).map((a) => [a.route, a.status])).toEqual(served);
    expect((await answersOf(CASES, operators, OPERATOR)).map((a) => [a.route, a.status])).toEqual(served);
    // The member's redelivery and test send went out like the operator's: three requests each.
    await eventually(() => expect([mine.receiver.requests.length, operators.receiver.requests.length]).toEqual([3, 3]));
    const log = await deliveryLogOf(suite.h, mine.endpointId, 3);
    expect(log.map((e: { trigger: string }) => e.trigger).sort()).toEqual(['event', 'redeliver', 'test']);
  });

  it("keeps a deleted endpoint's log for the operator: no member can show it is theirs", async () => {
    const f = await fixture();
    suite.stub.endpoints.delete(f.endpointId);
    const path = `/admin/v1/webhooks/${f.endpointId}/deliveries`;
    expect((await suite.h.call('GET', path, { as: OPERATOR })).body).toHaveLength(1);
    const res = await suite.h.call('GET', path, { as: memberOf(f.orgId, 'Owner') });
    expect([res.status, res.body.detail]).toEqual([404, `No webhook with id '${f.endpointId}' was found.`]);
  });
});
