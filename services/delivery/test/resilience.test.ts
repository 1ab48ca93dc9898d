import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@preflight/testing';
import { issueCreated } from './events.ts';
import {
  deliveryLog,
  deliveryLogOf,
  cleanup,
  databaseClient,
  eventPublisher,
  isolation,
  queryRows,
  signalEndpointChanged,
  startDelivery,
  startReceiver,
  startWebhookStub,
  type DeliveryHarness,
  type Isolation,
  type Publisher,
  type Receiver,
  type WebhookStub,
} from './harness.ts';

const isolations: Isolation[] = [];
const receivers: Receiver[] = [];
const stops: Array<() => Promise<unknown>> = [];
let stub: WebhookStub;

const receiver = async (...args: Parameters<typeof startReceiver>) => {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
};

async function service(env: Record<string, string> = {}, iso = isolation()) {
  if (!isolations.includes(iso)) isolations.push(iso);
  const h = await startDelivery(iso, stub.url, env);
  stops.push(() => h.stop());
  const pub = await eventPublisher(iso.prefix);
  stops.push(() => pub.close());
  return { h, pub, iso };
}

beforeAll(async () => {
  stub = await startWebhookStub();
});

afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await stub?.close();
  for (const r of receivers) await r.close();
  for (const iso of isolations) await cleanup(iso);
});

const log = (h: DeliveryHarness, id: string) => deliveryLog(h, id, '?limit=200');
const outcomesOf = (id: string) => stub.outcomes.filter((o) => o.endpointId === id).map((o) => o.delivered);

/**
 * Every one of the endpoint's `n` deliveries delivered and its outcome reported: `n` delivered
 * attempts in its log, none of its deliveries left in the table (a final one stays until its
 * outcome is reported), and the webhook service heard successes only (a run of them as one).
 */
async function expectAllDelivered(h: DeliveryHarness, iso: Isolation, id: string, n: number): Promise<void> {
  expect((await log(h, id)).filter((e: { outcome: string }) => e.outcome === 'delivered')).toHaveLength(n);
  const [left] = await queryRows<{ n: number }>(`select count(*)::int as n from "${iso.schema}".deliveries where endpoint_id = $1`, [id]);
  expect(left!.n).toBe(0);
  expect(outcomesOf(id).length).toBeGreaterThan(0);
  expect(outcomesOf(id).every(Boolean)).toBe(true);
}

describe('bounded attempts', () => {
  let h: DeliveryHarness;
  let pub: Publisher;
  beforeAll(async () => ({ h, pub } = await service()));

  it('times out an attempt whose response body trickles in', async () => {
    const org = randomUUID();
    const timers: NodeJS.Timeout[] = [];
    const r = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('.');
      timers.push(setInterval(() => res.write('.'), 100));
    });
    const endpoint = stub.add(org, r.url);
    await pub.publish(issueCreated(org), { orgId: org });
    await eventually(() => expect(outcomesOf(endpoint.id)).toEqual([false]), { timeoutMs: 10_000 });
    for (const t of timers) clearInterval(t);
    const entries = await deliveryLogOf(h, endpoint.id, 3);
    for (const e of entries) {
      expect(e).toMatchObject({ outcome: 'failed', statusCode: 200, error: 'timed out after 1000 ms' });
      expect(e.durationMs).toBeGreaterThanOrEqual(950);
      expect(e.durationMs).toBeLessThan(1000 + 1000);
    }
  });

  it('keeps delivering to a healthy endpoint while another one hangs', async () => {
    const org = randomUUID();
    const hanging = await receiver(() => undefined);
    const healthy = await receiver();
    stub.add(org, hanging.url);
    stub.add(org, healthy.url);
    const started = Date.now();
    for (let i = 0; i < 12; i += 1) await pub.publish(issueCreated(org), { orgId: org });
    await eventually(() => expect(healthy.requests).toHaveLength(12), { timeoutMs: 10_000 });
    const last = Math.max(...healthy.requests.map((q) => q.at));
    // All twelve arrived before the first hanging attempt could even time out (1 s) …
    expect(last - started).toBeLessThan(1000);
    // … while the hanging endpoint held at most its own 4 slots.
    expect(hanging.started).toBeLessThanOrEqual(4);
  });
});

type LogEntry = { deliveryId: string; eventId: string; attempt: number; attemptedAt: string; durationMs: number; statusCode: number | null; error: string | null; outcome: string };

/** Per event, its attempts oldest first. */
function byEvent(entries: LogEntry[]): Map<string, LogEntry[]> {
  const out = new Map<string, LogEntry[]>();
  for (const e of [...entries].sort((a, b) => a.attempt - b.attempt)) out.set(e.eventId, [...(out.get(e.eventId) ?? []), e]);
  return out;
}

describe('a stalled endpoint', () => {
  it('never postpones an attempt: one that cannot start within its time fails without a request, on the schedule', async () => {
    // Harness settings: 1 s per attempt, waits of 100 and 300 ms; 4 slots per endpoint, as many waiting in memory.
    const { h, pub, iso } = await service({ DELIVERY_BREAKER_VOLUME_THRESHOLD: '10000' });
    const org = randomUUID();
    const r = await receiver(() => undefined);
    const endpoint = stub.add(org, r.url);
    const published = Date.now();
    for (let i = 0; i < 12; i += 1) await pub.publish(issueCreated(org), { orgId: org });
    // Every delivery ends (failed, or cancelled once the fifth failure disabled the endpoint) within
    // its three attempts' time: 3 × 1 s + 0.4 s of waits, plus the claim loop's rounds.
    const ended = (attempts: LogEntry[]) => attempts.at(-1)!.outcome === 'cancelled' || attempts.length === 3;
    let entries: LogEntry[] = [];
    let events = new Map<string, LogEntry[]>();
    await eventually(
      async () => {
        entries = (await log(h, endpoint.id)) as LogEntry[];
        events = byEvent(entries);
        expect(events.size).toBe(12);
        expect([...events.values()].every(ended)).toBe(true);
        const [left] = await queryRows<{ n: number }>(`select count(*)::int as n from "${iso.schema}".deliveries where endpoint_id = $1`, [endpoint.id]);
        expect(left!.n).toBe(0);
      },
      { timeoutMs: 15_000 },
    );
    const notSent = entries.filter((e) => e.error?.startsWith('not sent: '));
    expect(notSent.length).toBeGreaterThan(0);
    for (const e of notSent) expect(e).toMatchObject({ statusCode: null, outcome: 'failed' });
    // At most the endpoint's 4 slots ever held a request at once, and each attempt started (or
    // failed unsent) within an attempt's time, plus a sweep, of when it was due.
    expect(r.started).toBeLessThanOrEqual(entries.length - notSent.length);
    for (const attempts of events.values()) {
      expect(Date.parse(attempts[0]!.attemptedAt) - published).toBeLessThan(1000 + 2000);
      for (let i = 1; i < attempts.length; i += 1) {
        const prev = attempts[i - 1]!;
        const dueAt = Date.parse(prev.attemptedAt) + prev.durationMs + [100, 300][i - 1]!;
        expect(Date.parse(attempts[i]!.attemptedAt) - dueAt).toBeLessThan(1000 + 2000);
      }
    }
    expect(stub.endpoints.get(endpoint.id)).toMatchObject({ isEnabled: false });
  });

  it('stays stalled through a round of timeouts: a request that ran out of time is no answer', async () => {
    // Retries far off and a breaker that never opens: only the stall decides here.
    const { h, pub } = await service({ DELIVERY_ATTEMPT_TIMEOUT_MS: '1500', DELIVERY_RETRY_SCHEDULE_MS: '60000,60000', DELIVERY_BREAKER_VOLUME_THRESHOLD: '10000' });
    const org = randomUUID();
    const r = await receiver(() => undefined);
    stub.add(org, r.url);
    for (let i = 0; i < 30; i += 1) await pub.publish(issueCreated(org), { orgId: org });
    await eventually(() => expect(r.started).toBe(4));
    await eventually(async () => expect(await h.metric('delivery_endpoints_stalled')).toBe(1), { timeoutMs: 5_000 });
    // The first 4 requests time out and the 4 waiting in memory start in their slots; new
    // deliveries fill the endpoint's bound again. Counted as answers, the timeouts ended the
    // stall for a second (STALL_MS), and the endpoint's whole deferred backlog came due at once.
    // A deadline, not a figure: the 1.5 s timeouts and the next starts run late on a loaded machine.
    await eventually(() => expect(r.started).toBe(8), { timeoutMs: 15_000 });
    const timedOutAt = Date.now();
    for (let i = 0; i < 4; i += 1) await pub.publish(issueCreated(org), { orgId: org });
    await eventually(async () => expect(await h.metric('delivery_endpoints_stalled')).toBe(1), { timeoutMs: 5_000 });
    expect(Date.now() - timedOutAt).toBeLessThan(900);
  });

  it('stores the deliveries of an endpoint stalled here without waking every replica\'s claim loop', async () => {
    // Long attempts and far retries: the endpoint stays stalled for the whole test.
    const { h, pub, iso } = await service({ DELIVERY_ATTEMPT_TIMEOUT_MS: '20000', DELIVERY_RETRY_SCHEDULE_MS: '60000,60000' });
    const org = randomUUID();
    const r = await receiver(() => undefined);
    const endpoint = stub.add(org, r.url);
    for (let i = 0; i < 8; i += 1) await pub.publish(issueCreated(org), { orgId: org });
    await eventually(async () => expect(await h.metric('delivery_endpoints_stalled')).toBe(1), { timeoutMs: 5_000 });
    const listener = await databaseClient();
    const notified: string[] = [];
    listener.on('notification', (n) => notified.push(n.channel));
    await listener.query(`listen "${iso.schema}_delivery"`);
    try {
      for (let i = 0; i < 10; i += 1) await pub.publish(issueCreated(org), { orgId: org });
      const stored = async () =>
        (await queryRows<{ n: number }>(`select count(*)::int as n from "${iso.schema}".deliveries where endpoint_id = $1 and lease_token is null`, [endpoint.id]))[0]!.n;
      await eventually(async () => expect(await stored()).toBe(10));
      expect(notified).toEqual([]);
    } finally {
      await listener.end();
    }
  });
});

describe('auto-disable and circuit breaker', () => {
  it('keeps the schedule for an endpoint answering 500: 3 attempts each, 5 failed deliveries disable it, and HTTP errors open no breaker', async () => {
    const { h, pub } = await service({ DELIVERY_BREAKER_VOLUME_THRESHOLD: '3' });
    const org = randomUUID();
    const r = await receiver((_req, res) => {
      res.statusCode = 500;
      res.end('down');
    });
    const endpoint = stub.add(org, r.url);
    for (let i = 0; i < 5; i += 1) await pub.publish(issueCreated(org), { orgId: org });
    await eventually(() => expect(outcomesOf(endpoint.id)).toEqual([false, false, false, false, false]), { timeoutMs: 20_000 });
    expect(stub.endpoints.get(endpoint.id)).toMatchObject({ isEnabled: false, consecutiveFailures: 5 });
    expect(await h.metric('webhook_endpoints_auto_disabled_total')).toBe(1);
    const entries = (await deliveryLogOf(h, endpoint.id, 15)) as LogEntry[];
    // Counted once recorded, which follows the report.
    await eventually(async () => expect(await h.metric('webhook_deliveries_total', { event_type: 'IssueCreated', outcome: 'failed' })).toBe(5));
    expect(r.requests).toHaveLength(15);
    for (const e of entries) expect(e).toMatchObject({ statusCode: 500, outcome: 'failed' });
    // The log names each request the receiver got.
    expect(new Set(entries.map((e) => e.deliveryId))).toEqual(new Set(r.requests.map((q) => q.headers['x-service-delivery'])));
    expect(await h.metric('delivery_circuit_breaker_transitions_total', { state: 'open' })).toBe(0);

    // Disabled: a new event finds no endpoint (acked without a transaction), so nothing more is attempted.
    const before = await h.metric('consumer_processed_total', { consumer: 'delivery-fanout', outcome: 'skipped' });
    await pub.publish(issueCreated(org), { orgId: org });
    await eventually(async () => expect(await h.metric('consumer_processed_total', { consumer: 'delivery-fanout', outcome: 'skipped' })).toBe(before + 1));
    expect(await log(h, endpoint.id)).toHaveLength(15);
  });

  it('fails the attempts due while its breaker is open at once, without a request, and sends again once the operator re-enables it', async () => {
    const { h, pub, iso } = await service({ DELIVERY_BREAKER_VOLUME_THRESHOLD: '2', DELIVERY_BREAKER_RESET_MS: '60000' });
    const org = randomUUID();
    // A port nothing listens on: every request fails to connect.
    const gone = await receiver();
    const deadUrl = gone.url;
    await gone.close();
    const endpoint = stub.add(org, deadUrl);
    for (let i = 0; i < 5; i += 1) await pub.publish(issueCreated(org), { orgId: org });
    await eventually(() => expect(outcomesOf(endpoint.id)).toEqual([false, false, false, false, false]), { timeoutMs: 15_000 });
    const entries = (await deliveryLogOf(h, endpoint.id, 15)) as LogEntry[];
    const refused = entries.filter((e) => e.error?.startsWith('circuit breaker open'));
    expect(refused.length).toBeGreaterThan(0);
    for (const e of refused) {
      expect(e).toMatchObject({ statusCode: null, outcome: 'failed' });
      expect(e.durationMs).toBeLessThan(50);
    }
    expect(await h.metric('delivery_circuit_breaker_transitions_total', { state: 'open' })).toBeGreaterThanOrEqual(1);

    // Re-enabled (the webhook service's signal with `reset`), and listening again: the next event is sent.
    const back = await receiver();
    endpoint.url = back.url;
    stub.enable(endpoint.id);
    await signalEndpointChanged(iso.prefix, { orgId: org, endpointId: endpoint.id, reset: true });
    const enabledAt = Date.now();
    await pub.publish(issueCreated(org), { orgId: org });
    await eventually(() => expect(back.requests).toHaveLength(1), { timeoutMs: 5_000 });
    expect(back.requests[0]!.at - enabledAt).toBeLessThan(1000);
  });
});

describe('restarts', () => {
  it('gives deliveries waiting for a slot back at a graceful stop, so they do not wait for their lease', async () => {
    const iso = isolation();
    const first = await service({}, iso);
    const org = randomUUID();
    let hang = true;
    const r = await receiver((_req, res) => {
      if (!hang) res.end('ok');
    });
    const endpoint = stub.add(org, r.url);
    for (let i = 0; i < 8; i += 1) await first.pub.publish(issueCreated(org), { orgId: org });
    await eventually(() => expect(r.started).toBe(4));
    // Every event handled (its inbox row committed) before the stop: an event the server sends
    // in the very moment the consumer unsubscribes is redelivered only after ack_wait (30 s),
    // which is not what this test is about (libs/bus README, "Stopping").
    await eventually(async () => expect((await queryRows<{ n: number }>(`select count(*)::int as n from "${iso.schema}".inbox`))[0]!.n).toBe(8));
    await first.h.stop();
    expect(r.started).toBe(4);
    hang = false;
    const second = await service({}, iso);
    // Leases last 2 × 1 s + 30 s here: every delivery arriving long before means the waiting
    // ones were given back, and the 4 timed-out ones were retried.
    await eventually(() => expectAllDelivered(second.h, iso, endpoint.id, 8), { timeoutMs: 10_000 });
    expect(r.started).toBe(12);
  });

  it('keeps a pending retry across a restart and sends it once', async () => {
    const iso = isolation();
    const env = { DELIVERY_RETRY_SCHEDULE_MS: '1500' };
    const first = await service(env, iso);
    const org = randomUUID();
    let calls = 0;
    const r = await receiver((_req, res) => {
      calls += 1;
      res.statusCode = calls === 1 ? 500 : 200;
      res.end();
    });
    const endpoint = stub.add(org, r.url);
    await first.pub.publish(issueCreated(org), { orgId: org });
    await eventually(async () => expect(await log(first.h, endpoint.id)).toHaveLength(1));
    await first.h.stop();
    expect(r.requests).toHaveLength(1);

    const second = await service(env, iso);
    await eventually(() => expect(outcomesOf(endpoint.id)).toEqual([true]), { timeoutMs: 10_000 });
    expect(r.requests).toHaveLength(2);
    const gap = r.requests[1]!.at - r.requests[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(1450);
    expect(gap).toBeLessThan(1500 + 1500);
    expect(r.requests[0]!.headers['x-service-delivery']).not.toBe(r.requests[1]!.headers['x-service-delivery']);
    expect(r.requests[0]!.headers['webhook-id']).toBe(r.requests[1]!.headers['webhook-id']);
    // The outcome is reported a few ms before its attempt is logged: wait for the log.
    expect((await deliveryLogOf(second.h, endpoint.id, 2)).map((e) => [e.attempt, e.outcome])).toEqual([
      [2, 'delivered'],
      [1, 'failed'],
    ]);
  });
});

describe('replicas', () => {
  it('share one backlog: both send, and every delivery is sent once', async () => {
    const iso = isolation();
    // One request at a time per endpoint and replica, and a receiver taking 10 ms: most rows
    // wait in the table, where both replicas claim them.
    const env = { DELIVERY_MAX_CONCURRENCY_PER_ENDPOINT: '1' };
    const a = await service(env, iso);
    const b = await service(env, iso);
    const org = randomUUID();
    const r = await receiver((_req, res) => void setTimeout(() => res.end('ok'), 10));
    const endpoint = stub.add(org, r.url);
    const n = 60;
    for (let i = 0; i < n; i += 1) await a.pub.publish(issueCreated(org), { orgId: org });
    await eventually(() => expectAllDelivered(a.h, iso, endpoint.id, n), { timeoutMs: 20_000 });
    const envelopeIds = r.requests.map((q) => q.headers['webhook-id']);
    expect(envelopeIds).toHaveLength(n);
    expect(new Set(envelopeIds).size).toBe(n);
    for (const replica of [a, b]) expect(await replica.h.metric('webhook_delivery_attempts_total', { outcome: 'delivered' })).toBeGreaterThan(0);
  });
});
