import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ENDPOINTS } from '@preflight/contract';
import { notFound, problemType, type Caller } from '@preflight/http';
import { memberOf, OPERATOR, schemaRows, type Reply } from '@preflight/testing';
import { AUTO_DISABLE_AFTER } from '../src/storage/webhooks.ts';
import { PUBLIC_URL, expectProblem, startHarness, type Harness } from './harness.ts';

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

function unknownId(what: string, id: string) {
  const e = notFound(what, id);
  return { type: problemType(e.code), title: e.title, status: e.status, detail: e.detail };
}

interface Case {
  route: string;
  call(f: Fixture, as: Caller): Promise<Reply>;
  missing(f: Fixture): [string, string];
  ok: number;
}

const CASES: Case[] = [
  { route: 'adminListWebhooks', call: (f, as) => h.call('GET', `/admin/v1/organizations/${f.orgId}/webhooks`, { as }), missing: (f) => ['organization', f.orgId], ok: 200 },
  {
    route: 'adminCreateWebhook',
    call: (f, as) => h.call('POST', `/admin/v1/organizations/${f.orgId}/webhooks`, { as, body: { url: PUBLIC_URL, events: [], name: 'Second' } }),
    missing: (f) => ['organization', f.orgId],
    ok: 201,
  },
  { route: 'adminEnableWebhook', call: (f, as) => h.call('POST', `/admin/v1/webhooks/${f.webhookId}/enable`, { as }), missing: (f) => ['webhook', f.webhookId], ok: 200 },
  {
    route: 'adminRotateWebhookSecret',
    call: (f, as) => h.call('POST', `/admin/v1/webhooks/${f.webhookId}/secret/rotate`, { as, body: { graceHours: 1 } }),
    missing: (f) => ['webhook', f.webhookId],
    ok: 200,
  },
];

/** The operator's list of the organisation's endpoints, and every row of the service's schema. */
async function stateOf(f: Fixture) {
  const list = await h.call('GET', `/admin/v1/organizations/${f.orgId}/webhooks`, { as: OPERATOR });
  expect(list.status).toBe(200);
  return { list: list.body, rows: await schemaRows(h.schema) };
}

describe('admin webhook routes for console members', () => {
  it('covers every webhook route members may call (the manifest)', () => {
    const open = Object.entries(ADMIN_ENDPOINTS).filter(([, e]) => e.owner === 'webhook' && 'members' in e);
    expect(CASES.map((c) => c.route).sort()).toEqual(open.map(([name]) => name).sort());
  });

  it('answers a member of another organisation as for an unknown id, on every route, and changes nothing', async () => {
    const f = await fixture();
    const before = await stateOf(f);
    expect(before.list).toEqual([expect.objectContaining({ id: f.webhookId, isEnabled: false })]);
    const outsider = memberOf(orgB, 'Owner');
    for (const c of CASES) {
      const [what, id] = c.missing(f);
      expect({ route: c.route, ...expectProblem(await c.call(f, outsider), 404) }).toMatchObject({ route: c.route, ...unknownId(what, id) });
    }
    expect(await stateOf(f)).toEqual(before);
  });

  it('serves a member of the organisation and the operator on every route', async () => {
    const mine = await fixture(randomUUID());
    const operators = await fixture(randomUUID());
    const member = memberOf(mine.orgId, 'Admin');
    for (const c of CASES) {
      expect({ route: c.route, status: (await c.call(mine, member)).status }).toEqual({ route: c.route, status: c.ok });
      expect({ route: c.route, status: (await c.call(operators, OPERATOR)).status }).toEqual({ route: c.route, status: c.ok });
    }
    // The member's endpoint is enabled again and their list holds what they made, nothing of others.
    const list = await h.call('GET', `/admin/v1/organizations/${mine.orgId}/webhooks`, { as: member });
    expect(list.body.map((w: { name: string; isEnabled: boolean }) => [w.name, w.isEnabled]).sort()).toEqual([
      ['Ops', true],
      ['Second', true],
    ]);
  });
});
