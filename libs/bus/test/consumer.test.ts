import { randomUUID } from 'node:crypto';
import { sql } from '@preflight/db';
import { eventually } from '@preflight/testing';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureStream, eventStreamOptions, eventsConfigShape, startConsumer, type EventHandler, type RunningConsumer } from '../src/index.ts';
import type { BatchEventHandler, ConsumedEvent } from '../src/consumer.ts';
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

type Extra = {
  registry?: Registry;
  concurrency?: number;
  batchSize?: number;
  gatherMs?: number;
  wants?: (e: ConsumedEvent) => boolean | Promise<boolean>;
  onReceived?: (e: ConsumedEvent) => void | Promise<void>;
  onSettled?: (e: ConsumedEvent) => void;
};

async function startTestConsumer(name: string, handlers: { handler: EventHandler<TestDB> } | { batchHandler: BatchEventHandler<TestDB> }, extra: Extra): Promise<RunningConsumer> {
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
    ...handlers,
  });
  running.push(c);
  return c;
}

const consumer = (name: string, handler: EventHandler<TestDB>, extra: Extra = {}) => startTestConsumer(name, { handler }, extra);
const batchConsumer = (name: string, batchHandler: BatchEventHandler<TestDB>, extra: Extra = {}) => startTestConsumer(name, { batchHandler }, extra);

const publish = (name: string, id = randomUUID()) =>
  h.js.publish(`${h.prefix}.${name}.happened`, new TextEncoder().encode(id), { msgID: id }).then(() => id);

/** Published before the consumer starts, so its first pull brings them all at once. */
const publishAll = async (name: string, n: number) => {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 1) ids.push(await publish(name));
  return ids;
};

/** Events per transaction, as the consumer_batch_size histogram saw them: [transactions, events]. */
const batches = async (registry: Registry, name: string) => {
  const values = (await registry.getSingleMetric('consumer_batch_size')?.get())?.values ?? [];
  const of = (metric: string) => values.find((v) => (v as { metricName?: string }).metricName === metric && v.labels.consumer === name)?.value ?? 0;
  return [of('consumer_batch_size_count'), of('consumer_batch_size_sum')];
};

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

  it('handles what is already there in one transaction, in stream order, and acks it all', async () => {
    const registry = new Registry();
    const ids = await publishAll('batch', 20);
    const seen: Array<{ seq: number; before: number }> = [];
    await consumer(
      'batch',
      async (event, trx) => {
        // The batch shares one transaction: the effects of the events before are visible.
        const before = await sql<{ n: number }>`select count(*)::int as n from effects where consumer = 'batch'`.execute(trx);
        seen.push({ seq: event.streamSequence, before: before.rows[0]!.n });
        await trx.insertInto('effects').values({ event_id: event.id, consumer: 'batch', replica: String(event.streamSequence) }).execute();
      },
      { registry, concurrency: 1, batchSize: 8 },
    );
    await eventually(async () => expect(new Set((await effects('batch')).map((r) => r.event_id))).toEqual(new Set(ids)));
    expect(seen.map((s) => s.seq)).toEqual([...seen.map((s) => s.seq)].sort((a, b) => a - b));
    expect(seen.map((s) => s.before)).toEqual(seen.map((_, i) => i));
    const [transactions, events] = await batches(registry, 'batch');
    expect(events).toBe(20);
    // At most 8 per transaction, and fewer transactions than events.
    expect(transactions).toBeGreaterThanOrEqual(3);
    expect(transactions).toBeLessThan(20);
    await eventually(async () => {
      expect(await metric(registry, 'consumer_processed_total', { consumer: 'batch', outcome: 'success' })).toBe(20);
      const info = await h.jsm.consumers.info(h.stream, 'batch');
      expect(info.num_ack_pending).toBe(0);
      expect(info.num_pending).toBe(0);
    });
  });

  it('skips, inside a batch, an event already in the inbox and acks it with the others', async () => {
    const registry = new Registry();
    const done = randomUUID();
    // Processed before a crash that lost the ack: the inbox row committed, the ack never left.
    await sql`insert into inbox (consumer, event_id) values ('batchdup', ${done})`.execute(h.database.db);
    const a = await publish('batchdup');
    await publish('batchdup', done);
    const b = await publish('batchdup');
    const calls: string[] = [];
    await consumer(
      'batchdup',
      async (event, trx) => {
        calls.push(event.id);
        await trx.insertInto('effects').values({ event_id: event.id, consumer: 'batchdup', replica: 'a' }).execute();
      },
      { registry, concurrency: 1 },
    );
    await eventually(async () => {
      const info = await h.jsm.consumers.info(h.stream, 'batchdup');
      expect(info.num_ack_pending + info.num_pending).toBe(0);
      expect(await metric(registry, 'consumer_processed_total', { consumer: 'batchdup', outcome: 'duplicate' })).toBe(1);
    });
    expect(calls).toEqual([a, b]);
    expect((await effects('batchdup')).map((r) => r.event_id).sort()).toEqual([a, b].sort());
    expect(await metric(registry, 'consumer_processed_total', { consumer: 'batchdup', outcome: 'success' })).toBe(2);
    expect(await metric(registry, 'consumer_batch_fallbacks_total', { consumer: 'batchdup' })).toBe(0);
  });

  it('rolls back a batch with a failing event, commits the others one by one, and redelivers only the failing one', async () => {
    const registry = new Registry();
    const ids = await publishAll('poison', 6);
    const poison = ids[2]!;
    const runs: string[] = [];
    await consumer(
      'poison',
      async (event, trx) => {
        runs.push(`${event.id}:${event.deliveryCount}`);
        await trx.insertInto('effects').values({ event_id: event.id, consumer: 'poison', replica: String(event.deliveryCount) }).execute();
        if (event.id === poison && event.deliveryCount === 1) throw new Error('poison');
      },
      { registry, concurrency: 1 },
    );
    await eventually(async () => expect((await effects('poison')).length).toBe(6));
    const rows = await effects('poison');
    expect(new Set(rows.map((r) => r.event_id))).toEqual(new Set(ids));
    // Each effect once; only the poison event needed a second delivery.
    for (const r of rows) expect(r.replica).toBe(r.event_id === poison ? '2' : '1');
    // The others ran in the rolled-back batch and again on their own, never after a redelivery.
    expect(runs.filter((r) => r.endsWith(':2'))).toEqual([`${poison}:2`]);
    await eventually(async () => {
      expect(await metric(registry, 'consumer_processed_total', { consumer: 'poison', outcome: 'success' })).toBe(6);
      expect(await metric(registry, 'consumer_processed_total', { consumer: 'poison', outcome: 'failure' })).toBe(1);
      expect(await metric(registry, 'consumer_redeliveries_total', { consumer: 'poison' })).toBe(1);
    });
    expect(await metric(registry, 'consumer_batch_fallbacks_total', { consumer: 'poison' })).toBeGreaterThanOrEqual(1);
  });

  it('runs afterCommit hooks once the effects are committed, and afterRollback hooks when they are not', async () => {
    const ids = await publishAll('hooks', 4);
    const poison = ids[1]!;
    const committed: string[] = [];
    const rolledBack: string[] = [];
    const visibleAtCommit: boolean[] = [];
    await consumer(
      'hooks',
      async (event, trx, tx) => {
        await trx.insertInto('effects').values({ event_id: event.id, consumer: 'hooks', replica: String(event.deliveryCount) }).execute();
        tx.afterRollback(() => rolledBack.push(`${event.id}:${event.deliveryCount}`));
        tx.afterCommit(() => {
          committed.push(event.id);
          // Committed: another connection already sees the effect (checked below).
          void sql<{ n: number }>`select count(*)::int as n from effects where event_id = ${event.id}`
            .execute(h.database.db)
            .then((r) => visibleAtCommit.push(r.rows[0]!.n === 1));
        });
        if (event.id === poison && event.deliveryCount === 1) throw new Error('poison');
      },
      { concurrency: 1 },
    );
    await eventually(async () => expect((await effects('hooks')).length).toBe(4));
    await eventually(() => expect(visibleAtCommit).toHaveLength(4));
    expect(new Set(committed)).toEqual(new Set(ids));
    expect(committed).toHaveLength(4);
    expect(visibleAtCommit.every(Boolean)).toBe(true);
    // The poison event's own failed transaction rolled back, and so did the batch it was in (if any).
    expect(rolledBack).toContain(`${poison}:1`);
    expect(rolledBack.every((r) => r.endsWith(':1'))).toBe(true);
  });

  it('shows every event to onReceived while all transaction slots wait, hands its work to the handler, and settles each event after its ack', async () => {
    const seen: string[] = [];
    const prepared = new WeakMap<ConsumedEvent, string>();
    const found: string[] = [];
    const settled: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    await consumer(
      'early',
      async (event, trx) => {
        found.push(prepared.get(event) ?? 'nothing prepared');
        if (first) {
          first = false;
          // The only transaction slot waits (a commit stall, say) until the test lets it go.
          await held;
        }
        await trx.insertInto('effects').values({ event_id: event.id, consumer: 'early', replica: '1' }).execute();
      },
      {
        concurrency: 1,
        batchSize: 1,
        onReceived: async (event) => {
          seen.push(event.id);
          prepared.set(event, `prepared ${event.id}`);
        },
        onSettled: (event) => settled.push(event.id),
      },
    );
    const ids = [await publish('early')];
    await eventually(() => expect(seen).toEqual(ids));
    for (let i = 0; i < 3; i += 1) ids.push(await publish('early'));
    // Received while the first event's transaction still holds the only slot.
    await eventually(() => expect(seen).toEqual(ids));
    expect(await effects('early')).toEqual([]);
    expect(settled).toEqual([]);
    release();
    await eventually(async () => expect((await effects('early')).map((r) => r.event_id).sort()).toEqual([...ids].sort()));
    await eventually(() => expect(settled).toEqual(ids));
    expect(found).toEqual(ids.map((id) => `prepared ${id}`));
    await eventually(async () => expect((await h.jsm.consumers.info(h.stream, 'early')).num_ack_pending).toBe(0));
  });

  it('holds no transaction slot for an event whose onReceived has not settled: events ready later go first', async () => {
    const handled: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slowId = randomUUID();
    await consumer(
      'ready',
      async (event, trx) => {
        handled.push(event.id);
        await trx.insertInto('effects').values({ event_id: event.id, consumer: 'ready', replica: '1' }).execute();
      },
      {
        concurrency: 1,
        onReceived: async (event) => {
          if (event.id === slowId) await held;
        },
      },
    );
    await publish('ready', slowId);
    const others = [await publish('ready'), await publish('ready'), await publish('ready')];
    await eventually(() => expect(handled).toEqual(others));
    release();
    await eventually(() => expect(handled).toEqual([...others, slowId]));
    await eventually(async () => expect((await h.jsm.consumers.info(h.stream, 'ready')).num_ack_pending).toBe(0));
  });

  it('calls a batchHandler once per batch with its fresh events in stream order, duplicates left out', async () => {
    const registry = new Registry();
    const ids = await publishAll('bhfresh', 6);
    const done = ids[2]!;
    await sql`insert into inbox (consumer, event_id) values ('bhfresh', ${done})`.execute(h.database.db);
    const calls: Array<Array<{ id: string; seq: number }>> = [];
    await batchConsumer(
      'bhfresh',
      async (events, trx) => {
        calls.push(events.map((e) => ({ id: e.id, seq: e.streamSequence })));
        for (const e of events) await trx.insertInto('effects').values({ event_id: e.id, consumer: 'bhfresh', replica: 'a' }).execute();
      },
      { registry, concurrency: 1, batchSize: 8 },
    );
    await eventually(async () => {
      expect(await metric(registry, 'consumer_processed_total', { consumer: 'bhfresh', outcome: 'success' })).toBe(5);
      expect(await metric(registry, 'consumer_processed_total', { consumer: 'bhfresh', outcome: 'duplicate' })).toBe(1);
    });
    const seen = calls.flat();
    expect(seen.map((e) => e.id)).toEqual(ids.filter((id) => id !== done));
    expect(seen.map((e) => e.seq)).toEqual([...seen.map((e) => e.seq)].sort((a, b) => a - b));
    expect(calls.every((c) => c.length > 0)).toBe(true);
    // Published before the consumer started: the first pull takes several at once.
    const [transactions] = await batches(registry, 'bhfresh');
    expect(calls.length).toBe(transactions);
    expect(calls.some((c) => c.length > 1)).toBe(true);
    expect(await metric(registry, 'consumer_batch_fallbacks_total', { consumer: 'bhfresh' })).toBe(0);
  });

  it('with gatherMs, waits for events that trickle in after the first and takes them in one batch', async () => {
    const calls: string[][] = [];
    await batchConsumer(
      'gather',
      async (events) => {
        calls.push(events.map((e) => e.id));
      },
      { concurrency: 1, batchSize: 8, gatherMs: 1_000 },
    );
    // Sent one by one after the consumer runs: without gatherMs the first would go alone.
    const ids = [await publish('gather'), await publish('gather'), await publish('gather')];
    await eventually(() => expect(calls.flat()).toEqual(ids));
    expect(calls).toEqual([ids]);
  });

  it('calls a batchHandler with one event at a time after its batch failed', async () => {
    const registry = new Registry();
    const ids = await publishAll('bhfail', 5);
    const poison = ids[3]!;
    const calls: string[][] = [];
    await batchConsumer(
      'bhfail',
      async (events, trx) => {
        calls.push(events.map((e) => `${e.id}:${e.deliveryCount}`));
        for (const e of events) {
          await trx.insertInto('effects').values({ event_id: e.id, consumer: 'bhfail', replica: String(e.deliveryCount) }).execute();
          if (e.id === poison && e.deliveryCount === 1) throw new Error('poison');
        }
      },
      { registry, concurrency: 1, batchSize: 8 },
    );
    await eventually(async () => expect((await effects('bhfail')).length).toBe(5));
    for (const r of await effects('bhfail')) expect(r.replica).toBe(r.event_id === poison ? '2' : '1');
    const failed = calls.findIndex((c) => c.includes(`${poison}:1`));
    expect(calls[failed]!.length).toBeGreaterThan(1);
    // Every call after the rolled-back batch: its events one by one, in stream order, then the redelivery.
    const after = calls.slice(failed + 1);
    expect(after.every((c) => c.length === 1)).toBe(true);
    expect(after.slice(0, calls[failed]!.length).map((c) => c[0])).toEqual(calls[failed]);
    expect(after.at(-1)).toEqual([`${poison}:2`]);
    expect(await metric(registry, 'consumer_batch_fallbacks_total', { consumer: 'bhfail' })).toBe(1);
  });

  it('acks the events wants declines with no inbox row and handles the others in one batch; a throwing wants counts as yes', async () => {
    const registry = new Registry();
    const ids = await publishAll('wants', 6);
    const declined = new Set([ids[0]!, ids[3]!, ids[5]!]);
    const unsure = ids[4]!;
    const calls: string[][] = [];
    await batchConsumer(
      'wants',
      async (events, trx) => {
        calls.push(events.map((e) => e.id));
        for (const e of events) await trx.insertInto('effects').values({ event_id: e.id, consumer: 'wants', replica: 'a' }).execute();
      },
      {
        registry,
        concurrency: 1,
        batchSize: 8,
        wants: async (e) => {
          if (e.id === unsure) throw new Error('cannot tell');
          return !declined.has(e.id);
        },
      },
    );
    const kept = ids.filter((id) => !declined.has(id));
    await eventually(async () => {
      expect(await metric(registry, 'consumer_processed_total', { consumer: 'wants', outcome: 'skipped' })).toBe(3);
      expect(await metric(registry, 'consumer_processed_total', { consumer: 'wants', outcome: 'success' })).toBe(3);
      const info = await h.jsm.consumers.info(h.stream, 'wants');
      expect(info.num_ack_pending).toBe(0);
      expect(info.num_pending).toBe(0);
    });
    expect(calls.flat()).toEqual(kept);
    expect((await effects('wants')).map((r) => r.event_id).sort()).toEqual([...kept].sort());
    const inbox = await sql<{ event_id: string }>`select event_id from inbox where consumer = 'wants'`.execute(h.database.db);
    expect(inbox.rows.map((r) => r.event_id).sort()).toEqual([...kept].sort());
  });

  it('refuses to start with both a handler and a batchHandler, or neither', async () => {
    const base = { js: h.js, jsm: h.jsm, stream: h.stream, durable: 'neither', filterSubjects: [`${h.prefix}.neither.>`], db: h.database.db, logger };
    const handler = async () => undefined;
    await expect(startConsumer({ ...base, handler, batchHandler: handler } as never)).rejects.toThrow(/exactly one/);
    await expect(startConsumer(base as never)).rejects.toThrow(/exactly one/);
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

  it('ensureStream with external provisioning only checks the stream: never creates or changes it', async () => {
    const before = await h.jsm.streams.info(h.stream);
    const info = await ensureStream(h.jsm, { name: h.stream, subjects: [`${h.prefix}.>`], maxAgeMs: 3_600_000, external: true });
    expect(info.config.max_age).toBe(before.config.max_age);
    expect((await h.jsm.streams.info(h.stream)).config.max_age).toBe(before.config.max_age);
    await expect(ensureStream(h.jsm, { name: `${h.stream}_MISSING`, subjects: [`${h.prefix}.>`], external: true })).rejects.toThrow(/does not exist/);
    await expect(h.jsm.streams.info(`${h.stream}_MISSING`)).rejects.toThrow();
    await expect(ensureStream(h.jsm, { name: h.stream, subjects: [`${h.prefix}_other.>`], external: true })).rejects.toThrow(/does not capture/);
  });

  it('eventStreamOptions: EVENTS_STREAM_MANAGED=external asks for a check only', () => {
    const base = { NATS_URL: 'nats://x:4222', EVENTS_STREAM: 'S', EVENTS_SUBJECT_PREFIX: 'p', EVENTS_STREAM_REPLICAS: 3, EVENTS_STREAM_MAX_AGE_HOURS: 1 };
    expect(eventStreamOptions(base).external).toBe(false);
    expect(eventStreamOptions({ ...base, EVENTS_STREAM_MANAGED: 'external' }).external).toBe(true);
    expect(z.object(eventsConfigShape).parse({}).EVENTS_STREAM_MANAGED).toBe('service');
    expect(() => z.object(eventsConfigShape).parse({ EVENTS_STREAM_MANAGED: 'nats' })).toThrow();
  });
});
