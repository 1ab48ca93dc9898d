import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ENDPOINTS } from '@preflight/contract';
import { answersOf, memberOf, memberRoutes, OPERATOR, schemaRows, withFreshIds, type ScopeCase } from '@preflight/testing';
import { AUTO_DISABLE_AFTER } from '../src/storage/webhooks.ts';
import { PUBLIC_URL, startHarness, type Harness } from './harness.ts';

/*
 * Console members reach the webhook settings through the gateway, confined to their
 * organisation: another organisation's endpoint (or organisation path) is answered exactly like
 * an unknown id, and nothing changes (issue 24).
 */

let h: Harness;
const orgA = randomUUID();
const orgB = randomUUID();

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

/** An endpoint of an organisation, made by the operator and disabled by failed deliveries (so enabling it is a change). */
interface Fixture {
  orgId: string;
  webhookId: string;
}

async function fixture(orgId: string = orgA): Promise<Fixture> {
  const made = await h.call('POST', `/admin/v1/organizations/${orgId}/webhooks`, { as: OPERATOR, body: { url: PUBLIC_URL, events: ['IssueCreated'], name: 'Ops' } });
  expect(made.status).toBe(201);
  for (let i = 0; i < AUTO_DISABLE_AFTER; i++) {
    expect((await h.call('POST', `/internal/v1/webhooks/${made.body.id}/delivery-outcome`, { body: { delivered: false } })).status).toBe(200);
  }
  return { orgId, webhookId: made.body.id };
}

const CASES: Array<ScopeCase<Fixture>> = [
  { route: 'adminListWebhooks', call: (f, as) => h.call('GET', `/admin/v1/organizations/${f.orgId}/webhooks`, { as }), ok: 200 },
  { route: 'adminCreateWebhook', call: (f, as) => h.call('POST', `/admin/v1/organizations/${f.orgId}/webhooks`, { as, body: { url: PUBLIC_URL, events: [], name: 'Second' } }), ok: 201 },
  { route: 'adminEnableWebhook', call: (f, as) => h.call('POST', `/admin/v1/webhooks/${f.webhookId}/enable`, { as }), ok: 200 },
  { route: 'adminRotateWebhookSecret', call: (f, as) => h.call('POST', `/admin/v1/webhooks/${f.webhookId}/secret/rotate`, { as, body: { graceHours: 1 } }), ok: 200 },
];

/** The operator's list of the organisation's endpoints, and every row of the service's schema. */
async function stateOf(f: Fixture) {
  const list = await h.call('GET', `/admin/v1/organizations/${f.orgId}/webhooks`, { as: OPERATOR });
  expect(list.status).toBe(200);
  return { list: list.body, rows: await schemaRows(h.schema) };
}

describe('admin webhook routes for console members', () => {
  it('covers every webhook route members may call (the manifest)', () => {
    expect(CASES.map((c) => c.route).sort()).toEqual(memberRoutes(ADMIN_ENDPOINTS, 'webhook'));
  });

  it('answers a member of another organisation exactly as for unknown ids, on every route, and changes nothing', async () => {
    const f = await fixture();
    const before = await stateOf(f);
    expect(before.list).toEqual([expect.objectContaining({ id: f.webhookId, isEnabled: false })]);
    const outsider = memberOf(orgB, 'Owner');
    const answers = await answersOf(CASES, f, outsider);
    expect(answers.map((a) => [a.route, a.status, a.problem?.detail])).toEqual(CASES.map((c) => [c.route, 404, expect.stringMatching(/^No (webhook|organization) with id '<id>' was found\.$/)]));
    expect(answers).toEqual(await answersOf(CASES, withFreshIds(f), outsider));
    expect(await stateOf(f)).toEqual(before);
  });

  it('serves a member of the organisation and the operator on every route', async () => {
    const mine = await fixture(randomUUID());
    const operators = await fixture(randomUUID());
    const member = memberOf(mine.orgId, 'Admin');
    const served = CASES.map((c) => [c.route, c.ok]);
    expect((await answersOf(CASES, mine, member)).map((a) => [a.route, a.status])).toEqual(served);
    expect((await answersOf(CASES, operators, OPERATOR)).map((a) => [a.route, a.status])).toEqual(served);
    // The member's endpoint is enabled again and their list holds what they made, nothing of others.
    const list = await h.call('GET', `/admin/v1/organizations/${mine.orgId}/webhooks`, { as: member });
    expect(list.body.map((w: { name: string; isEnabled: boolean }) => [w.name, w.isEnabled]).sort()).toEqual([
      ['Ops', true],
      ['Second', true],
    ]);
  });
});
