import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL, eventually } from '@preflight/testing';
import { call, freshTenant } from '../support/client.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import type { ServiceName } from '../../scripts/lib/services.ts';
import { startSystem, type RunningSystem } from '../support/system.ts';

/**
 * Issue 22, finding 8, through the running system: the webhook service restarted with another
 * at-rest key under the same id (what a second checkout on a shared database did) could not open
 * an endpoint's secret and left it out, so its events were never delivered, silently. Now they
 * wait, pending, and go out once the right key is back; both services say so on /metrics.
 */
let sys: RunningSystem;
let receiver: Receiver;

beforeAll(async () => {
  // No endpoint cache: a restart quicker than its TTL would let the event filed after it go out
  // with the secret the delivery service already held, and nothing would be held.
  sys = await startSystem({ DELIVERY_KEY_HOLD_MS: '500', WEBHOOK_SECRET_CHECK_INTERVAL_MS: '500', DELIVERY_ENDPOINT_CACHE_TTL_MS: '0' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await sys?.stop();
});

/** A metric summed over every replica of a service, as a dashboard sums it over pods. */
async function metric(service: ServiceName, name: string, label = ''): Promise<number> {
  const texts = await Promise.all(sys.replicas[service].map(async ({ url }) => (await fetch(`${url}/metrics`)).text()));
  return texts
    .flatMap((text) => text.split('\n'))
    .filter((l) => l.startsWith(`${name}{`) && l.includes(label))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}
/** The endpoint's deliveries not final yet. */
async function pendingDeliveries(endpointId: string): Promise<Array<{ status: string; attempt_count: number }>> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(`select status, attempt_count from "${sys.schemas.delivery}".deliveries where endpoint_id = $1 and status in ('pending', 'parked')`, [endpointId])).rows;
  } finally {
    await client.end();
  }
}

describe('a webhook service that cannot open an endpoint\'s secret', () => {
  // Two restarts of the webhook service (every replica, under E2E_REPLICAS) on a loaded machine: more than the default 30 s.
  it('holds the endpoint\'s deliveries, alerts, and delivers them once the key is back', { timeout: 90_000 }, async () => {
    const t = await freshTenant(sys);
    const key = t.keys.all!.key;
    const created = await call(sys, 'POST', '/api/v1/webhooks', { apiKey: key, body: { url: receiver.url, events: ['IssueCreated'] } });
    expect(created.status).toBe(201);
    const { id: webhookId, secret } = created.body;
    await t.admin.setCampaignStatus(t.campaign.id, 'Active');
    const file = async (title: string) =>
      (await call(sys, 'POST', `/api/v1/campaigns/${t.campaign.id}/issues`, { apiKey: key, body: { title, severity: 'Low', type: 'Bug', pageUrl: 'https://shop.example.com/' } })).body.id as string;
    const titles = () => receiver.received.map((d) => JSON.parse(d.body).data.title as string);

    await file('Before the key changed');
    await eventually(() => expect(titles()).toEqual(['Before the key changed']), { timeoutMs: 15_000 });

    // Another key under the same id: the stored secret no longer opens.
    const right = sys.env.WEBHOOK_SECRET_KEYS!;
    sys.env.WEBHOOK_SECRET_KEYS = `${right.slice(0, right.indexOf(':'))}:${randomBytes(32).toString('base64')}`;
    await sys.restart('webhook');
    await file('While the key is wrong');
    await eventually(async () => expect(await metric('delivery', 'webhook_deliveries_held_for_key_total')).toBeGreaterThanOrEqual(2), { timeoutMs: 15_000 });
    await eventually(async () => expect(await metric('webhook', 'secrets_undecryptable', 'kind="signing-secret"')).toBeGreaterThanOrEqual(1), { timeoutMs: 15_000 });
    expect(titles()).toEqual(['Before the key changed']);
    expect(await pendingDeliveries(webhookId)).toEqual([{ status: 'pending', attempt_count: 0 }]);

    sys.env.WEBHOOK_SECRET_KEYS = right;
    await sys.restart('webhook');
    await eventually(() => expect(titles()).toEqual(['Before the key changed', 'While the key is wrong']), { timeoutMs: 20_000 });
    const late = receiver.received[1]!;
    expect(() => new Webhook(`whsec_${secret}`).verify(late.body, late.headers as Record<string, string>)).not.toThrow();
    await eventually(async () => expect(await metric('webhook', 'secrets_undecryptable', 'kind="signing-secret"')).toBe(0));
    // The receiver has its request before the attempt is recorded (in a batch after it): the log catches up.
    await eventually(async () => {
      const log = await call(sys, 'GET', `/admin/v1/webhooks/${webhookId}/deliveries`, { token: sys.adminToken });
      expect(log.body.map((e: { attempt: number; outcome: string }) => [e.attempt, e.outcome])).toEqual([[1, 'delivered'], [1, 'delivered']]);
    });
  });
});
