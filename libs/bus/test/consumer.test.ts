import { randomUUID } from 'node:crypto';
import { sql } from '@preflight/db';
import { eventually } from '@preflight/testing';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureStream, startConsumer, type EventHandler, type RunningConsumer } from '../src/index.ts';
import { createHarness, logger, type Harness, type TestDB } from './harness.ts';

let h: Harness;
const running: RunningConsumer[] = [];

beforeAll(async () => {
  h = await createHarness('consumer');
});

afterAll(async () => {
  await Promise.all(running.map((c) => c.stop()));
  await h.close();
});

async function consumer(name: string, handler: EventHandler<TestDB>, extra: { registry?: Registry; concurrency?: number } = {}): Promise<RunningConsumer> {
  const c = await startConsumer({
    js: h.js,
    jsm: h.jsm,
    stream: h.stream,
    durable: name,
    filterSubjects: [`${h.prefix}.${name}.>`],
    db: h.database.db,
    schema: h.schema,
    logger,
    retryDelayMs: () => 50,
    lagIntervalMs: 200,
    ...extra,
    handler,
  });
  running.push(c);
  return c;
}

const publish = (name: string, id = randomUUID()) =>
  h.js.publish(`${h.prefix}.${name}.happened`, new TextEncoder().encode(id), { msgID: id }).then(() => id);

const effects = async (consumerName: string) =>
  (await sql<{ event_id: string; replica: string }>`select event_id, replica from effects where consumer = ${consumerName}`.execute(h.database.db)).rows;

const metric = async (registry: Registry, name: string, labels: Record<string, string>) =>
  (await registry.getSingleMetric(name)?.get())?.values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))?.value ?? 0;

describe('consumer', () => {
  it('rolls back a failed handler, redelivers after a nak, and commits its effects once', async () => {
    const registry = new Registry();
    let calls = 0;
    await consumer(
      'retry',
      async (event, trx) => {
        calls += 1;
        await trx.insertInto('effects').values({ event_id: event.id, consumer: 'retry', replica: String(event.deliveryCount) }).execute();
        if (event.deliveryCount === 1) throw new Error('first attempt fails');
      },
      { registry },
    );
    const id = await publish('retry');
    await eventually(async () => expect(await effects('retry')).toEqual([{ event_id: id, replica: '2' }]));
    expect(calls).toBe(2);
    await eventually(async () => {
      expect(await metric(registry, 'consumer_processed_total', { consumer: 'retry', outcome: 'failure' })).toBe(1);
      expect(await metric(registry, 'consumer_processed_total', { consumer: 'retry', outcome: 'success' })).toBe(1);
      expect(await metric(registry, 'consumer_redeliveries_total', { consumer: 'retry' })).toBe(1);
      expect(await metric(registry, 'consumer_lag', { consumer: 'retry' })).toBe(0);
    });
  });

  it('ignores a redelivered event it already processed (inbox), and acks it', async () => {
    const registry = new Registry();
    const id = randomUUID();
    // Processed before a crash that lost the ack: the inbox row committed, the ack never left.
    await sql`insert into inbox (consumer, event_id) values ('dedupe', ${id})`.execute(h.database.db);
    let calls = 0;
    await consumer(
      'dedupe',
      async (event, trx) => {
        calls += 1;
        await trx.insertInto('effects').values({ event_id: event.id, consumer: 'dedupe', replica: 'a' }).execute();
      },
      { registry },
    );
    await publish('dedupe', id);
    const fresh = await publish('dedupe');
    await eventually(async () => expect(await effects('dedupe')).toEqual([{ event_id: fresh, replica: 'a' }]));
    expect(calls).toBe(1);
    await eventually(async () => {
      expect(await metric(registry, 'consumer_processed_total', { consumer: 'dedupe', outcome: 'duplicate' })).toBe(1);
      const info = await h.jsm.consumers.info(h.stream, 'dedupe');
      expect(info.num_ack_pending).toBe(0);
      expect(info.num_pending).toBe(0);
    });
  });

  it('shares the work of one durable between two replicas, each event handled once', async () => {
    const handlerOf =
      (replica: string): EventHandler<TestDB> =>
      async (event, trx) => {
        // A little real work, so a replica is busy while the other pulls.
        await sql`select pg_sleep(0.01)`.execute(trx);
        await trx.insertInto('effects').values({ event_id: event.id, consumer: 'shared', replica }).execute();
      };
    await consumer('shared', handlerOf('a'), { concurrency: 1 });
    await consumer('shared', handlerOf('b'), { concurrency: 1 });
    const ids = new Set<string>();
    for (let i = 0; i < 40; i += 1) ids.add(await publish('shared'));
    await eventually(async () => expect(new Set((await effects('shared')).map((r) => r.event_id))).toEqual(ids), { timeoutMs: 20_000 });
    const rows = await effects('shared');
    expect(rows).toHaveLength(40);
    expect(rows.filter((r) => r.replica === 'a').length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.replica === 'b').length).toBeGreaterThan(0);
  });

  it('creating the same durable again is idempotent and keeps its position', async () => {
    const c = await consumer('again', async () => undefined);
    await publish('again');
    await eventually(async () => expect((await h.jsm.consumers.info(h.stream, 'again')).num_ack_pending + (await h.jsm.consumers.info(h.stream, 'again')).num_pending).toBe(0));
    await c.stop();
    const before = await h.jsm.consumers.info(h.stream, 'again');
    await consumer('again', async () => undefined);
    const after = await h.jsm.consumers.info(h.stream, 'again');
    expect(after.created).toBe(before.created);
    expect(after.delivered.stream_seq).toBe(before.delivered.stream_seq);
  });

  it('ensureStream updates an existing stream in place', async () => {
    const before = await h.jsm.streams.info(h.stream);
    const info = await ensureStream(h.jsm, { name: h.stream, subjects: [`${h.prefix}.>`], maxAgeMs: 7_200_000, duplicateWindowMs: 60_000 });
    expect(info.config.max_age).toBe(7_200_000 * 1_000_000);
    expect(info.created).toBe(before.created);
    expect(info.state.messages).toBe(before.state.messages);
  });
});
