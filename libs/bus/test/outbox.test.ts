import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { createDatabase, sql } from '@preflight/db';
import { TEST_DATABASE_URL, eventually } from '@preflight/testing';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueEvent, startConsumer, startOutboxRelay, type ConsumedEvent, type OutboxRelay, type RunningConsumer } from '../src/index.ts';
import { createHarness, logger, type Harness } from './harness.ts';

const run = promisify(execFile);
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

let h: Harness;
const stoppers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  h = await createHarness('outbox');
});

afterAll(async () => {
  for (const stop of stoppers.reverse()) await stop();
  await h.close();
});

function relay(opts: { registry?: Registry; batchSize?: number; pollIntervalMs?: number } = {}): OutboxRelay {
  const r = startOutboxRelay({ db: h.database.db, pool: h.database.pool, schema: h.schema, js: h.js, logger, ...opts });
  stoppers.push(() => r.stop());
  return r;
}

/** A consumer on one subject that records what its handler saw. */
async function recorder(name: string, concurrency = 4): Promise<{ seen: ConsumedEvent[]; consumer: RunningConsumer }> {
  const seen: ConsumedEvent[] = [];
  const consumer = await startConsumer({
    js: h.js,
    jsm: h.jsm,
    stream: h.stream,
    durable: `${name}_${h.schema}`.slice(0, 60),
    filterSubjects: [`${h.prefix}.${name}.>`],
    db: h.database.db,
    logger,
    concurrency,
    handler: async (e) => {
      seen.push(e);
    },
  });
  stoppers.push(() => consumer.stop());
  return { seen, consumer };
}

async function enqueue(subject: string, body: string, id = randomUUID()): Promise<string> {
  await h.database.db.transaction().execute((trx) => enqueueEvent(trx, { id, subject, type: 'test.Body', payload: enc(body), orgId: randomUUID() }));
  return id;
}

const metric = async (registry: Registry, name: string) => (await registry.getSingleMetric(name)?.get())?.values[0]?.value ?? 0;

const unpublished = async () =>
  (await sql<{ n: number }>`select count(*)::int as n from outbox where published_at is null`.execute(h.database.db)).rows[0]?.n;

describe('outbox relay', () => {
  it('refuses to enqueue outside a transaction', async () => {
    await expect(enqueueEvent(h.database.db, { subject: `${h.prefix}.x.y`, type: 't', payload: enc('x') })).rejects.toThrow(/inside the transaction/);
  });

  it('publishes committed rows in order, with their id as Nats-Msg-Id, and marks them', async () => {
    const { seen } = await recorder('e2e', 1);
    const registry = new Registry();
    relay({ registry });
    const ids: string[] = [];
    await h.database.db.transaction().execute(async (trx) => {
      for (const body of ['one', 'two', 'three']) ids.push(await enqueueEvent(trx, { subject: `${h.prefix}.e2e.happened`, type: 'test.Body', payload: enc(body) }));
    });
    // A rolled-back transaction leaves nothing behind.
    await h.database.db
      .transaction()
      .execute(async (trx) => {
        await enqueueEvent(trx, { subject: `${h.prefix}.e2e.happened`, type: 'test.Body', payload: enc('rolled back') });
        throw new Error('rollback');
      })
      .catch(() => undefined);

    await eventually(() => expect(seen.map((e) => dec(e.payload))).toEqual(['one', 'two', 'three']));
    expect(seen.map((e) => e.id)).toEqual(ids);
    expect(seen[0]).toMatchObject({ subject: `${h.prefix}.e2e.happened`, type: 'test.Body', deliveryCount: 1, redelivered: false });
    await eventually(async () => expect(await unpublished()).toBe(0));
    await eventually(async () => {
      expect(await metric(registry, 'outbox_published_total')).toBe(3);
      expect(await metric(registry, 'outbox_backlog')).toBe(0);
    });
  });

  it('delivers, exactly once, a row committed by a process that exited before any relay ran', async () => {
    // No relay runs while the child commits.
    for (const stop of stoppers.splice(0).reverse()) await stop();
    const { seen } = await recorder('crash');
    const id = randomUUID();
    const child = resolve(import.meta.dirname, 'fixtures/enqueue-and-exit.ts');
    await run(process.execPath, ['--import', 'tsx', child, TEST_DATABASE_URL, h.schema, `${h.prefix}.crash.happened`, id], { cwd: resolve(import.meta.dirname, '..') });
    const row = await sql<{ published_at: Date | null }>`select published_at from outbox where id = ${id}`.execute(h.database.db);
    expect(row.rows).toEqual([{ published_at: null }]);
    expect(seen).toEqual([]);

    relay();
    await eventually(() => expect(seen.map((e) => e.id)).toContain(id));
    await eventually(async () => expect(await unpublished()).toBe(0));
    // In the stream once, handled once.
    const info = await h.jsm.streams.info(h.stream, { subjects_filter: `${h.prefix}.crash.>` });
    expect(info.state.subjects).toEqual({ [`${h.prefix}.crash.happened`]: 1 });
    expect(seen.filter((e) => e.id === id)).toHaveLength(1);
    expect(dec(seen[0]!.payload)).toBe('crash-window');
  });

  it('JetStream drops a re-publish of the same id (the relay crashed between publish and mark)', async () => {
    for (const stop of stoppers.splice(0).reverse()) await stop();
    const subject = `${h.prefix}.dup.happened`;
    const before = await h.streamMessages();
    const id = await enqueue(subject, 'once');
    // The "crashed" relay got this far: published, never marked.
    const first = await h.js.publish(subject, enc('once'), { msgID: id });
    expect(first.duplicate).toBe(false);
    expect(await unpublished()).toBe(1);

    const registry = new Registry();
    relay({ registry });
    await eventually(async () => expect(await unpublished()).toBe(0));
    expect(await h.streamMessages()).toBe(before + 1);
    const second = await h.js.publish(subject, enc('once'), { msgID: id });
    expect(second.duplicate).toBe(true);
    expect(second.seq).toBe(first.seq);
  });

  it('two relays over one table publish each row once', async () => {
    for (const stop of stoppers.splice(0).reverse()) await stop();
    const { seen } = await recorder('pair');
    const subject = `${h.prefix}.pair.happened`;
    const ids = new Set<string>();
    await h.database.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 150; i += 1) ids.add(await enqueueEvent(trx, { subject, type: 'test.Body', payload: enc(String(i)) }));
    });
    const [ra, rb] = [new Registry(), new Registry()];
    relay({ registry: ra, batchSize: 10 });
    relay({ registry: rb, batchSize: 10 });
    await eventually(async () => expect(await unpublished()).toBe(0), { timeoutMs: 20_000 });
    // Each relay counts what it published (duplicates included): the sum is the row count.
    expect((await metric(ra, 'outbox_published_total')) + (await metric(rb, 'outbox_published_total'))).toBe(150);
    const attempts = await sql<{ attempts: number; n: number }>`select attempts, count(*)::int as n from outbox where subject = ${subject} group by attempts`.execute(h.database.db);
    expect(attempts.rows).toEqual([{ attempts: 1, n: 150 }]);
    await eventually(() => expect(new Set(seen.map((e) => e.id))).toEqual(ids), { timeoutMs: 20_000 });
    expect(seen).toHaveLength(150);
  });

  it('wakes on the commit of a writer of its own pool without a NOTIFY, and on a NOTIFY from any other writer', async () => {
    for (const stop of stoppers.splice(0).reverse()) await stop();
    const { seen } = await recorder('notify');
    const channel = `${h.schema}_outbox`;
    // Counts the notifications on the relay's channel, as another replica would get them.
    const other = createDatabase({ url: TEST_DATABASE_URL, schema: h.schema, poolMax: 2 });
    stoppers.push(() => other.close());
    const listener = await other.pool.connect();
    stoppers.push(async () => listener.release());
    const notified: string[] = [];
    listener.on('notification', (n) => notified.push(n.channel));
    await listener.query(`listen "${channel}"`);

    relay({ pollIntervalMs: 30_000 });
    // The relay is listening.
    await eventually(async () => {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where query = ${`listen "${channel}"`} and pid <> ${(listener as unknown as { processID: number }).processID}`.execute(h.database.db);
      expect(rows[0]?.n).toBe(1);
    });
    // The relay runs on this pool: it sees the connection come back after the commit.
    const first = await enqueue(`${h.prefix}.notify.happened`, 'first');
    await eventually(() => expect(seen.map((e) => e.id)).toEqual([first]), { timeoutMs: 5_000 });
    // The relay is now in its 30 s wait: only a NOTIFY can bring this one (another pool) this fast.
    const second = randomUUID();
    await other.db.transaction().execute((trx) => enqueueEvent(trx, { id: second, subject: `${h.prefix}.notify.happened`, type: 'test.Body', payload: enc('second') }));
    await eventually(() => expect(seen.map((e) => e.id)).toEqual([first, second]), { timeoutMs: 5_000 });
    // Notifications arrive in commit order: the second one's is here, so the first sent none.
    await eventually(() => expect(notified).toEqual([channel]));
  });

  it('after a failed publish, republishes from the failed row on, counting one attempt for it alone', async () => {
    for (const stop of stoppers.splice(0).reverse()) await stop();
    const { seen } = await recorder('fail', 1);
    const subject = `${h.prefix}.fail.happened`;
    const ids: string[] = [];
    await h.database.db.transaction().execute(async (trx) => {
      for (const body of ['a', 'b', 'c']) ids.push(await enqueueEvent(trx, { subject, type: 'test.Body', payload: enc(body) }));
    });
    let failOnce = true;
    const js = new Proxy(h.js, {
      get(target, prop) {
        if (prop === 'publish') {
          return (subj: string, payload: Uint8Array, opts?: { msgID?: string }) => {
            if (failOnce && opts?.msgID === ids[1]) {
              failOnce = false;
              return Promise.reject(new Error('JetStream unavailable'));
            }
            return target.publish(subj, payload, opts as never);
          };
        }
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const registry = new Registry();
    const r = startOutboxRelay({ db: h.database.db, pool: h.database.pool, schema: h.schema, js, logger, registry, backoff: { initialMs: 10 } });
    stoppers.push(() => r.stop());
    await eventually(async () => expect(await unpublished()).toBe(0));
    // 'c' landed in the first round (after the failed 'b'), and its republish was dropped.
    await eventually(() => expect(seen.map((e) => dec(e.payload))).toEqual(['a', 'c', 'b']));
    const rows = await sql<{ id: string; attempts: number; last_error: string | null }>`select id, attempts, last_error from outbox where subject = ${subject}`.execute(h.database.db);
    expect(Object.fromEntries(rows.rows.map((x) => [x.id, [x.attempts, x.last_error]]))).toEqual({ [ids[0]!]: [1, null], [ids[1]!]: [2, null], [ids[2]!]: [1, null] });
    expect(await metric(registry, 'outbox_publish_failures_total')).toBe(1);
  });
});
