import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testTokens } from '@preflight/testing';
import { STATS_IDS_PER_CALL, createDeliveryClient } from '../src/clients/delivery-client.ts';
import { NO_STATS, startDeliveryStandIn } from './delivery-stand-in.ts';
import { PUBLIC_URL, asAdmin, asKey, startHarness, type Harness } from './harness.ts';

// The admin list carries each endpoint's delivery stats, asked of the delivery service (here a
// stand-in on loopback); without an answer from it the list still answers, with `stats: null`.
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());
beforeEach(() => {
  h.delivery.behaviour = 'answer';
  h.delivery.calls.length = 0;
});

const create = async (org: string) => (await h.call('POST', `/admin/v1/organizations/${org}/webhooks`, { as: asAdmin, body: { url: PUBLIC_URL } })).body.id as string;
const adminList = (org: string, headers: Record<string, string> = {}) => h.call('GET', `/admin/v1/organizations/${org}/webhooks`, { as: asAdmin, headers });

describe('GET /admin/v1/organizations/:orgId/webhooks stats', () => {
  it('merges each endpoint\'s stats from the delivery service, asked once for the organisation\'s endpoints', async () => {
    const org = randomUUID();
    const busy = await create(org);
    const quiet = await create(org);
    const busyStats = { attempts24h: 12, succeeded24h: 10, p50Ms: 84, p99Ms: 950, lastSuccessAt: '2026-11-25T09:00:00.000Z', lastFailureAt: '2026-11-25T08:59:58.000Z' };
    h.delivery.stats.set(busy, busyStats);
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

    const res = await adminList(org, { traceparent });
    expect(res.status).toBe(200);
    expect(res.body.map((w: { id: string; stats: unknown }) => [w.id, w.stats])).toEqual([
      [quiet, NO_STATS],
      [busy, busyStats],
    ]);
    expect(h.delivery.calls).toHaveLength(1);
    expect(h.delivery.calls[0]!.ids.sort()).toEqual([busy, quiet].sort());
    // The call joins the request's trace.
    expect(h.delivery.calls[0]!.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
  });

  it('does not ask for an organisation without endpoints', async () => {
    expect((await adminList(randomUUID())).body).toEqual([]);
    expect(h.delivery.calls).toEqual([]);
  });

  it.each(['fail', 'garble'] as const)('answers stats: null on every item when the delivery service answers badly (%s)', async (behaviour) => {
    const org = randomUUID();
    const ids = [await create(org), await create(org)];
    h.delivery.behaviour = behaviour;
    const res = await adminList(org);
    expect(res.status).toBe(200);
    expect(res.body.map((w: { id: string }) => w.id).sort()).toEqual(ids.sort());
    for (const w of res.body) expect(w).toMatchObject({ isEnabled: true, consecutiveFailures: 0, stats: null });
  });

  it('answers stats: null within its 2 s bound when the delivery service does not answer', async () => {
    const org = randomUUID();
    await create(org);
    h.delivery.behaviour = 'hang';
    const started = Date.now();
    const res = await adminList(org);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject([{ stats: null }]);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('answers stats: null when the delivery service is down', async () => {
    const gone = await startDeliveryStandIn();
    await gone.close();
    const down = await startHarness({ schema: h.schema, deliveryUrl: gone.url });
    try {
      const org = randomUUID();
      await create(org);
      const res = await down.call('GET', `/admin/v1/organizations/${org}/webhooks`, { as: asAdmin });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject([{ id: expect.any(String), consecutiveFailures: 0, stats: null }]);
    } finally {
      await down.close();
    }
  });

  it('only the admin list carries stats', async () => {
    const org = randomUUID();
    const id = await create(org);
    const pub = await h.call('GET', '/api/v1/webhooks', { as: asKey(org) });
    expect(pub.body[0]).not.toHaveProperty('stats');
    expect((await h.call('POST', `/admin/v1/webhooks/${id}/enable`, { as: asAdmin })).body).not.toHaveProperty('stats');
  });
});

describe('delivery client', () => {
  it('asks for at most 500 ids per call, the delivery service\'s limit, and answers them all', async () => {
    const ids = Array.from({ length: STATS_IDS_PER_CALL + 1 }, () => randomUUID());
    const client = createDeliveryClient(`${h.delivery.url}/`, testTokens('webhook'));
    const stats = await client.endpointStats(ids).finally(() => client.close());
    expect(h.delivery.calls.map((c) => c.ids.length).sort((a, b) => b - a)).toEqual([500, 1]);
    expect([...stats.keys()].sort()).toEqual([...ids].sort());
  });
});
