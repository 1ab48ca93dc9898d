import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '@preflight/testing';
import { loadDeliveryConfig } from '../src/config.ts';
import { assessHost } from '@preflight/net';

const refusalOf = (host: string, resolved: string[]) => {
  const verdict = assessHost(host, resolved);
  return verdict.allowed ? undefined : verdict.reason;
};
import { issueCreated } from './events.ts';
import { cleanup, deliveryLog, deliveryLogOf, eventPublisher, isolation, startDelivery, startReceiver, startWebhookStub, type DeliveryHarness, type Publisher, type Receiver, type WebhookStub } from './harness.ts';

const iso = isolation();
let stub: WebhookStub;
let h: DeliveryHarness;
let pub: Publisher;
let r: Receiver;

beforeAll(async () => {
  stub = await startWebhookStub();
  r = await startReceiver();
  // The default: private targets refused. `rebind.example` resolves to a private address.
  h = await startDelivery(iso, stub.url, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' }, async (host) =>
    host === 'rebind.example' ? [{ address: '93.184.216.34', family: 4 }, { address: '10.1.2.3', family: 4 }] : [],
  );
  pub = await eventPublisher(iso.prefix);
});

afterAll(async () => {
  await pub?.close();
  await h?.stop();
  await stub?.close();
  await r?.close();
  await cleanup(iso);
});

const log = (id: string) => deliveryLog(h, id);

it('refuses loopback, localhost and names resolving to a private address, at every attempt, and records it', async () => {
  const org = randomUUID();
  const targets = [
    stub.add(org, r.url),
    stub.add(org, `http://localhost:${r.port}/x`),
    stub.add(org, `http://[::ffff:127.0.0.1]:${r.port}/x`),
    stub.add(org, `http://rebind.example:${r.port}/x`),
  ];
  await pub.publish(issueCreated(org), { orgId: org });
  for (const t of targets) {
    await eventually(() => expect(stub.outcomes.filter((o) => o.endpointId === t.id)).toEqual([{ endpointId: t.id, delivered: false }]), { timeoutMs: 10_000 });
    const entries = await deliveryLogOf(h, t.id, 3);
    expect(entries.map((e) => [e.outcome, e.statusCode])).toEqual(Array(3).fill(['refused', null]));
    expect(entries[0].error).toMatch(/^refused: /);
  }
  expect((await log(targets[0]!.id))[0].error).toMatch(/loopback/);
  expect((await log(targets[3]!.id))[0].error).toMatch(/10\.1\.2\.3.*private/);
  expect(r.requests).toHaveLength(0);
  expect(await h.metric('webhook_delivery_attempts_total', { event_type: 'IssueCreated', outcome: 'refused' })).toBe(12);
});

it('applies the same allow-list as the webhook service', () => {
  for (const host of ['127.0.0.1', '10.0.0.1', '192.168.1.1', '172.16.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fc00::1', 'fe80::1', '::ffff:10.0.0.1', '::127.0.0.1', '2001:db8::1', '224.0.0.1']) {
    expect(refusalOf(host, []), host).toBeDefined();
  }
  expect(refusalOf('93.184.216.34', [])).toBeUndefined();
  expect(refusalOf('2606:4700::1111', [])).toBeUndefined();
  expect(refusalOf('example.com', ['93.184.216.34'])).toBeUndefined();
  expect(refusalOf('example.com', ['93.184.216.34', '192.168.0.1'])).toMatch(/192\.168\.0\.1/);
  expect(refusalOf('a.localhost', ['93.184.216.34'])).toMatch(/this machine/);
});

it('defaults to the documented delivery semantics', () => {
  const c = loadDeliveryConfig({}, false);
  expect([c.DELIVERY_PORT, c.DB_SCHEMA, c.DELIVERY_ATTEMPT_TIMEOUT_MS, c.DELIVERY_RETRY_SCHEDULE_MS, c.DELIVERY_MAX_CONCURRENCY_PER_ENDPOINT, c.DELIVERY_WORKERS, c.WEBHOOK_ALLOW_PRIVATE_TARGETS, c.WEBHOOK_URL]).toEqual([
    8084,
    'delivery',
    10_000,
    [1000, 5000],
    4,
    64,
    false,
    'http://127.0.0.1:8083',
  ]);
  expect(() => loadDeliveryConfig({ DELIVERY_RETRY_SCHEDULE_MS: '1s,5s' }, false)).toThrow(/DELIVERY_RETRY_SCHEDULE_MS/);
});
