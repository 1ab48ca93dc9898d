import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '@preflight/testing';
import { call, freshTenant } from '../support/client.ts';
import { startReceiver, type ReceivedDelivery, type Receiver, type ReceiverAnswer } from '../support/receiver.ts';
import { expectProblem } from './problems.ts';

// The delivery contract through the gateway, as an integrator meets it (public-api-v1.md 6.5,
// admin-api-v1.md "Webhook settings and delivery logs"), against the running system with its
// default timing (waits of 1 s then 5 s, 10 s per attempt) and 2 delivery replicas.
const sys = inject('system');
const receivers: Receiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
});

const answering = (status: number): ReceiverAnswer => (res) => res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'down');
/** Closes the connection without an answer: no HTTP response at all, which is what opens a breaker. */
const hangingUp: ReceiverAnswer = (res) => res.socket?.destroy();

async function receiver(answer: ReceiverAnswer = answering(200)): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

const admin = (method: string, path: string, body?: unknown) => call(sys, method, path, { token: sys.adminToken, ...(body !== undefined ? { body } : {}) });

/** A tenant with an active campaign and one endpoint (created on the settings page) receiving IssueCreated. */
async function subscribed(r: Receiver) {
  const t = await freshTenant(sys, { all: ['read', 'write', 'webhooks'] });
  await t.admin.setCampaignStatus(t.campaign.id, 'Active');
  const hook = await admin('POST', `/admin/v1/organizations/${t.org.id}/webhooks`, { url: r.url, events: ['IssueCreated'], name: 'CI' });
  expect(hook.status).toBe(201);
  const file = async (title = 'Checkout button does nothing') => {
    const res = await call(sys, 'POST', `/api/v1/campaigns/${t.campaign.id}/issues`, { apiKey: t.keys.all!.key, body: { title, severity: 'High', type: 'Bug' } });
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };
  const listed = async () => ((await admin('GET', `/admin/v1/organizations/${t.org.id}/webhooks`)).body as Array<Record<string, any>>).find((w) => w.id === hook.body.id)!;
  const log = async () => (await admin('GET', `/admin/v1/webhooks/${hook.body.id}/deliveries?limit=200`)).body as Array<Record<string, any>>;
  return { t, id: hook.body.id as string, secret: hook.body.secret as string, file, listed, log };
}

const envelopeId = (d: ReceivedDelivery) => JSON.parse(d.body).id as string;

function hexVerifies(d: ReceivedDelivery, header: string, secret: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(d.body).digest('hex')}`);
  const given = Buffer.from(String(d.headers[header] ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const standardVerifies = (d: ReceivedDelivery, secret: string): boolean => {
  try {
    new Webhook(`whsec_${secret}`).verify(d.body, d.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
};

describe('the retry schedule', () => {
  it('tries a failing delivery 3 times, 1 s then 5 s apart, and the log names each request the receiver got', async () => {
    const r = await receiver(answering(500));
    const s = await subscribed(r);
    await s.file();
    await eventually(() => expect(r.received).toHaveLength(3), { timeoutMs: 15_000 });
    const [a, b, c] = r.received.map((d) => d.at);
    expect(b! - a!).toBeGreaterThanOrEqual(950);
    expect(b! - a!).toBeLessThan(1000 + 800);
    expect(c! - b!).toBeGreaterThanOrEqual(4950);
    expect(c! - b!).toBeLessThan(5000 + 800);
    expect(new Set(r.received.map(envelopeId)).size).toBe(1);

    // Final once its outcome counted: nothing is sent after the third attempt.
    await eventually(async () => expect((await s.listed()).consecutiveFailures).toBe(1));
    const log = await s.log();
    expect(log.map((e) => [e.attempt, e.statusCode, e.outcome, e.trigger])).toEqual([
      [3, 500, 'failed', 'event'],
      [2, 500, 'failed', 'event'],
      [1, 500, 'failed', 'event'],
    ]);
    expect(log.map((e) => e.deliveryId).reverse()).toEqual(r.received.map((d) => d.headers['x-service-delivery']));
    expect(r.received).toHaveLength(3);
  }, 30_000);

  it('disables an endpoint within 10 s of the fifth of 5 events filed at once, after 3 attempts each', async () => {
    const r = await receiver(answering(503));
    const s = await subscribed(r);
    await Promise.all([1, 2, 3, 4, 5].map((i) => s.file(`Broken ${i}`)));
    const filedAt = Date.now();
    const disabled = await eventually(
      async () => {
        const w = await s.listed();
        expect(w.isEnabled).toBe(false);
        return { w, seenAt: Date.now() };
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(disabled.seenAt - filedAt).toBeLessThan(10_000);
    expect(disabled.w).toMatchObject({ consecutiveFailures: 5, disabledAt: expect.any(String) });
    expect(r.received).toHaveLength(15);
    const log = await s.log();
    expect(log).toHaveLength(15);
    expect(new Set(log.map((e) => e.deliveryId))).toEqual(new Set(r.received.map((d) => d.headers['x-service-delivery'])));
  }, 30_000);

  it('resumes at once when re-enabled: the next event arrives within a second, whatever either replica\'s breaker learnt', async () => {
    const r = await receiver(hangingUp);
    const s = await subscribed(r);
    await Promise.all([1, 2, 3, 4, 5].map((i) => s.file(`Unreachable ${i}`)));
    await eventually(async () => expect((await s.listed()).isEnabled).toBe(false), { timeoutMs: 20_000, intervalMs: 100 });
    // No request got an answer: each replica's breaker opened on these connection failures.
    expect((await s.log()).every((e) => e.statusCode === null && e.outcome === 'failed')).toBe(true);

    r.answer = answering(200);
    const before = r.received.length;
    const enabled = await admin('POST', `/admin/v1/webhooks/${s.id}/enable`);
    expect(enabled.body).toMatchObject({ isEnabled: true, consecutiveFailures: 0, disabledAt: null });
    for (let i = 0; i < 4; i += 1) {
      const filedAt = Date.now();
      await s.file(`Back ${i}`);
      await eventually(() => expect(r.received).toHaveLength(before + i + 1), { timeoutMs: 5_000, intervalMs: 20 });
      expect(r.received.at(-1)!.at - filedAt).toBeLessThan(1000);
    }
  }, 40_000);
});

describe('operator sends', () => {
  it('redelivers a logged attempt\'s envelope as a new delivery, and refuses while the endpoint is disabled', async () => {
    const r = await receiver();
    const s = await subscribed(r);
    await s.file();
    const [entry] = await eventually(async () => {
      const log = await s.log();
      expect(log).toHaveLength(1);
      return log;
    });
    const res = await admin('POST', `/admin/v1/webhooks/${s.id}/deliveries/${entry!.deliveryId}/redeliver`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ eventId: entry!.eventId, deliveryId: expect.any(String) });
    await eventually(() => expect(r.received).toHaveLength(2));
    expect(r.received[1]!.body).toBe(r.received[0]!.body);
    expect(r.received[1]!.headers['x-service-delivery']).toBe(res.body.deliveryId);
    await eventually(async () => expect((await s.log())[0]).toMatchObject({ deliveryId: res.body.deliveryId, trigger: 'redeliver', outcome: 'delivered' }));

    expectProblem(await admin('POST', `/admin/v1/webhooks/${s.id}/deliveries/${crypto.randomUUID()}/redeliver`), 404);
  });

  it('recovers every delivery that failed since a time once the endpoint is back, and nothing twice', async () => {
    const r = await receiver(answering(500));
    const s = await subscribed(r);
    const since = new Date(Date.now() - 60_000).toISOString();
    await s.file('First');
    await s.file('Second');
    await eventually(async () => expect((await s.listed()).consecutiveFailures).toBe(2), { timeoutMs: 20_000 });
    const failed = new Set(r.received.map(envelopeId));
    expect(failed.size).toBe(2);

    r.answer = answering(200);
    const res = await admin('POST', `/admin/v1/webhooks/${s.id}/recover`, { since });
    expect(res).toMatchObject({ status: 202, body: { count: 2 } });
    await eventually(() => expect(r.received).toHaveLength(8));
    expect(new Set(r.received.slice(6).map(envelopeId))).toEqual(failed);
    await eventually(async () => expect((await s.listed()).consecutiveFailures).toBe(0));
    expect((await admin('POST', `/admin/v1/webhooks/${s.id}/recover`, { since })).body).toEqual({ count: 0 });
    expectProblem(await admin('POST', `/admin/v1/webhooks/${s.id}/recover`, { since: new Date(Date.now() - 31 * 86_400_000).toISOString() }), 422);
  }, 40_000);

  it('test-sends an event\'s sample, signed and logged, even to a disabled endpoint', async () => {
    const r = await receiver();
    const s = await subscribed(r);
    const res = await admin('POST', `/admin/v1/webhooks/${s.id}/test`, { eventType: 'CampaignClosed' });
    expect(res.status).toBe(202);
    await eventually(() => expect(r.received).toHaveLength(1));
    const [d] = r.received;
    expect(JSON.parse(d!.body)).toMatchObject({ id: res.body.eventId, eventType: 'CampaignClosed' });
    expect(d!.headers['x-service-delivery']).toBe(res.body.deliveryId);
    expect(hexVerifies(d!, 'x-service-signature', s.secret)).toBe(true);
    await eventually(async () => expect((await s.log())[0]).toMatchObject({ deliveryId: res.body.deliveryId, trigger: 'test', outcome: 'delivered' }));
    expectProblem(await admin('POST', `/admin/v1/webhooks/${s.id}/test`, { eventType: 'TesterInvited' }), 422);
  });
});

describe('secret rotation', () => {
  it('keeps receivers on either secret verifying during the grace, and only the new one after it', async () => {
    const r = await receiver();
    const s = await subscribed(r);
    const rotated = await admin('POST', `/admin/v1/webhooks/${s.id}/secret/rotate`, { graceHours: 1 });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ secret: expect.any(String), previousSecretExpiresAt: expect.any(String) });
    const hour = Date.parse(rotated.body.previousSecretExpiresAt) - Date.now();
    expect(hour).toBeGreaterThan(3_500_000);
    expect(hour).toBeLessThanOrEqual(3_600_000);
    const [oldSecret, newSecret] = [s.secret, rotated.body.secret as string];

    await s.file('During the grace');
    await eventually(() => expect(r.received).toHaveLength(1));
    const during = r.received[0]!;
    // A receiver that has not switched: the spec's recipe, unchanged, and Standard Webhooks.
    expect(hexVerifies(during, 'x-service-signature', oldSecret)).toBe(true);
    expect(standardVerifies(during, oldSecret)).toBe(true);
    // A receiver that has switched.
    expect(hexVerifies(during, 'x-service-signature-next', newSecret)).toBe(true);
    expect(standardVerifies(during, newSecret)).toBe(true);

    // A rotation without grace: only its new secret signs from then on.
    const again = await admin('POST', `/admin/v1/webhooks/${s.id}/secret/rotate`, { graceHours: 0 });
    expect(again.status).toBe(200);
    await s.file('After the grace');
    await eventually(() => expect(r.received).toHaveLength(2));
    const after = r.received[1]!;
    expect(hexVerifies(after, 'x-service-signature', again.body.secret)).toBe(true);
    expect(standardVerifies(after, again.body.secret)).toBe(true);
    expect(after.headers['x-service-signature-next']).toBeUndefined();
    for (const old of [oldSecret, newSecret]) {
      expect(hexVerifies(after, 'x-service-signature', old)).toBe(false);
      expect(standardVerifies(after, old)).toBe(false);
    }
    expectProblem(await admin('POST', `/admin/v1/webhooks/${s.id}/secret/rotate`, { graceHours: 73 }), 422);
  });
});

describe('endpoint stats', () => {
  it('shows attempts and successes of the last 24 hours, response times and the last success and failure in the admin list', async () => {
    let n = 0;
    const r = await receiver((res, req) => answering((n += 1) === 1 ? 500 : 200)(res, req));
    const s = await subscribed(r);
    await s.file();
    await eventually(async () => expect((await s.listed()).stats).toMatchObject({ attempts24h: 2, succeeded24h: 1 }), { timeoutMs: 10_000 });
    expect((await s.listed()).stats).toEqual({
      attempts24h: 2,
      succeeded24h: 1,
      p50Ms: expect.any(Number),
      p99Ms: expect.any(Number),
      lastSuccessAt: expect.any(String),
      lastFailureAt: expect.any(String),
    });
  });
});
