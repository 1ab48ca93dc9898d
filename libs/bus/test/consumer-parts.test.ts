/**
 * The consumer's parts on their own (libs/bus/src/consumer/): the queue and the gathering wait,
 * settings and the failure rule, a message's event, and, against real Postgres, the inbox record
 * and the transaction hooks. consumer.test.ts drives them together over NATS.
 */
import type { JsMsg } from '@nats-io/jetstream';
import { createDatabase, migrateToLatest, sql, type Database } from '@preflight/db';
import { dropSchemas, isolatedName, TEST_DATABASE_URL } from '@preflight/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPE_HEADER, ORG_ID_HEADER } from '../src/index.ts';
import { eventOf } from '../src/consumer/event-traces.ts';
import { inboxMigration, recordInInbox } from '../src/consumer/inbox.ts';
import { gather, ReceivedQueue, type Received } from '../src/consumer/received-queue.ts';
import { afterFailure, consumerSettings, durableConfig } from '../src/consumer/settings.ts';
import { inTransaction } from '../src/consumer/transaction.ts';
import { Sleeper } from '../src/sleeper.ts';
import { logger } from './harness.ts';

const item = (id: string, ready: boolean): Received => ({ m: {} as JsMsg, event: { id } as Received['event'], ready });

describe('ReceivedQueue', () => {
  it('takes ready items oldest first, leaving the ones whose onReceived has not settled', () => {
    const q = new ReceivedQueue();
    q.items.push(item('a', false), item('b', true), item('c', true), item('d', true));
    q.ready = 3;
    expect(q.take(2).map((r) => r.event.id)).toEqual(['b', 'c']);
    expect(q.ready).toBe(1);
    expect(q.items.map((r) => r.event.id)).toEqual(['a', 'd']);
  });
});

describe('gather', () => {
  it('returns once the batch is full, at the deadline, when cut short, or when the subscription ended', async () => {
    const q = new ReceivedQueue();
    const arrived = new Sleeper();
    const t0 = Date.now();
    setTimeout(() => ((q.ready = 2), arrived.wake()), 20);
    await gather(q, arrived, 2, 5_000, undefined, () => false);
    expect(Date.now() - t0).toBeLessThan(1_000);

    const t1 = Date.now();
    await gather(q, arrived, 3, 30, undefined, () => false);
    expect(Date.now() - t1).toBeGreaterThanOrEqual(25);

    const t2 = Date.now();
    await gather(q, arrived, 3, 5_000, new Promise((resolve) => setTimeout(resolve, 20)), () => false);
    await gather(q, arrived, 3, 5_000, undefined, () => true);
    expect(Date.now() - t2).toBeLessThan(1_000);
  });
});

describe('consumer settings', () => {
  it('applies defaults and bounds', () => {
    const s = consumerSettings({ concurrency: 0, batchSize: -3, lingerMs: -1 });
    expect(s).toMatchObject({ concurrency: 1, batchSize: 1, lingerMs: 0, gatherMs: 0, ackWaitMs: 30_000, maxDeliver: 20 });
    expect([1, 2, 3, 10].map(s.retryDelay)).toEqual([1_000, 2_000, 4_000, 60_000]);
  });

  it('asks for explicit acks, one or several filter subjects, and room for every batch slot twice', () => {
    const s = consumerSettings({ concurrency: 8, batchSize: 100 });
    expect(durableConfig('d', ['a'], s)).toMatchObject({ durable_name: 'd', filter_subject: 'a', max_ack_pending: 1_600, max_deliver: 20 });
    expect(durableConfig('d', ['a', 'b'], consumerSettings({}))).toMatchObject({ filter_subjects: ['a', 'b'], max_ack_pending: 1_000 });
  });

  it('gives an event up at its last allowed delivery, and never with maxDeliver -1', () => {
    const s = consumerSettings({ maxDeliver: 3, retryDelayMs: (n) => n * 10 });
    expect(afterFailure(2, s)).toEqual({ kind: 'retry', delayMs: 20 });
    expect(afterFailure(3, s)).toEqual({ kind: 'dead' });
    expect(afterFailure(99, consumerSettings({ maxDeliver: -1 }))).toMatchObject({ kind: 'retry' });
  });
});

describe('eventOf', () => {
  const msg = (headers: Record<string, string> | undefined) =>
    ({
      headers: headers && { get: (k: string) => headers[k] ?? '' },
      subject: 's.x',
      data: new Uint8Array([1]),
      seq: 7,
      info: { stream: 'S', deliveryCount: 2, redelivered: true },
    }) as unknown as JsMsg;

  it('reads the id, type, organisation and trace context from the headers', () => {
    expect(eventOf(msg({ 'Nats-Msg-Id': 'e1', [EVENT_TYPE_HEADER]: 'T', [ORG_ID_HEADER]: 'o', traceparent: 'tp' }))).toMatchObject({
      type: 'T',
      orgId: 'o',
      id: 'e1',
      subject: 's.x',
      deliveryCount: 2,
      redelivered: true,
      streamSequence: 7,
      traceparent: 'tp',
    });
  });

  it('names a message published without an id by its stream and sequence', () => {
    expect(eventOf(msg(undefined))).toMatchObject({ id: 'S:7', type: undefined, orgId: undefined, traceparent: undefined });
  });
});

describe('inbox and transactions (Postgres)', () => {
  const schema = isolatedName('consumer_parts');
  let database: Database<{ inbox: { consumer: string; event_id: string } }>;

  beforeAll(async () => {
    database = createDatabase({ url: TEST_DATABASE_URL, schema, poolMax: 2 });
    await migrateToLatest(database.db, schema, { '0001_inbox': inboxMigration });
  });
  afterAll(async () => {
    await database.close();
    await dropSchemas([schema]);
  });

  it('answers which ids are new, once per id even when it comes twice in one call', async () => {
    await database.db.transaction().execute(async (trx) => {
      expect(await recordInInbox(trx, 'c', ['a'])).toEqual([true]);
      expect(await recordInInbox(trx, 'c', ['a'])).toEqual([false]);
      expect(await recordInInbox(trx, 'c', ['b', 'a', 'b', 'c'])).toEqual([true, false, false, true]);
      expect(await recordInInbox(trx, 'other', ['a'])).toEqual([true]);
    });
  });

  it('runs afterCommit hooks after a commit and afterRollback hooks after a rollback; a failing hook is logged, the others run', async () => {
    const seen: string[] = [];
    const result = await inTransaction(database.db, logger, async (trx, tx) => {
      await sql`insert into inbox (consumer, event_id) values ('t', 'x')`.execute(trx);
      tx.afterCommit(() => {
        throw new Error('boom');
      });
      tx.afterCommit(() => seen.push('committed'));
      tx.afterRollback(() => seen.push('never'));
      return 42;
    });
    expect(result).toBe(42);
    await expect(
      inTransaction(database.db, logger, async (trx, tx) => {
        tx.afterRollback(() => seen.push('rolled back'));
        await sql`insert into inbox (consumer, event_id) values ('t', 'y')`.execute(trx);
        throw new Error('handler failed');
      }),
    ).rejects.toThrow('handler failed');
    expect(seen).toEqual(['committed', 'rolled back']);
    const rows = await sql<{ event_id: string }>`select event_id from inbox where consumer = 't'`.execute(database.db);
    expect(rows.rows.map((r) => r.event_id)).toEqual(['x']);
  });
});
