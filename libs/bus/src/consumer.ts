import { AckPolicy, DeliverPolicy, JetStreamApiError, type ConsumerConfig, type ConsumerInfo, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { sql, type Kysely, type Migration, type Transaction } from 'kysely';
import { Registry } from 'prom-client';
import type { Logger } from '@preflight/log';
import { counter, errorMessage, gauge, histogram } from './metrics.ts';
import { Sleeper } from './sleeper.ts';
import { EVENT_TYPE_HEADER, ORG_ID_HEADER } from './outbox.ts';
import { inBatchTrace, inEventTrace, receiveTrace, settleTrace, TRACEPARENT_HEADER, type EventTrace } from './tracing.ts';

/**
 * The `inbox` table, for a consuming service's migration list: one row per (consumer, event)
 * processed, written in the same transaction as the handler's effects.
 */
export const inboxMigration: Migration = {
  async up(db) {
    await sql`
      create table inbox (
        consumer text not null,
        event_id text not null,
        processed_at timestamptz not null default now(),
        primary key (consumer, event_id)
      )`.execute(db);
    await sql`create index inbox_processed_at on inbox (processed_at)`.execute(db);
  },
  async down(db) {
    await sql`drop table inbox`.execute(db);
  },
};

/** One event as a handler sees it. */
export interface ConsumedEvent {
  /** `Nats-Msg-Id` (the outbox id), or `<stream>:<seq>` for a message published without one. */
  id: string;
  subject: string;
  /** The `Preflight-Event-Type` header: the protobuf type name. */
  type: string | undefined;
  orgId: string | undefined;
  payload: Uint8Array;
  /** 1 on the first delivery. */
  deliveryCount: number;
  redelivered: boolean;
  streamSequence: number;
  /**
   * The `traceparent` header: the trace context of the relay's publish, child of the request
   * that enqueued the event. Handlers run in the event's trace already; a handler that queues
   * work for later may store this to continue the trace there.
   */
  traceparent?: string | undefined;
}

/**
 * Runs inside a transaction that has already recorded the event in the inbox: everything it
 * writes through `trx` commits with that record, or not at all. Throw to have the event
 * redelivered later.
 *
 * The transaction may hold a batch of events (handled one after the other, in stream order):
 * locks the handler takes are held until the whole batch commits, and its effects for the
 * events before it are visible through `trx`. A throw rolls the whole batch back; each of its
 * events is then handled again in a transaction of its own, so a handler may run twice for an
 * event whose first run was rolled back (as on any redelivery).
 */
export type EventHandler<DB> = (event: ConsumedEvent, trx: Transaction<DB>, tx: TransactionHooks) => Promise<void>;

/**
 * What a handler may want done once its transaction has ended: in memory work that must only
 * follow a commit (handing rows it wrote to an in-process worker), or undoing a reservation
 * when the transaction rolled back. Each callback runs once, synchronously, right after the
 * commit (before the acks) or the rollback; a throw is logged and otherwise ignored. A crash
 * between the commit and the callback runs neither, so what they do must also be recoverable
 * from the database.
 */
export interface TransactionHooks {
  afterCommit(fn: () => void): void;
  afterRollback(fn: () => void): void;
}

/**
 * Like `EventHandler`, but called once per transaction with the events of the batch that were
 * not in the inbox yet, in stream order (never empty): lets a handler share work between the
 * events of a batch (one lock, one write for several events). After a failed batch it is called
 * with one event at a time, each in a transaction of its own, so it may see an event again that
 * it saw in the rolled-back batch.
 */
export type BatchEventHandler<DB> = (events: ConsumedEvent[], trx: Transaction<DB>, tx: TransactionHooks) => Promise<void>;

/** Exactly one of the two. */
export type ConsumerHandlerOptions<DB> = { handler: EventHandler<DB>; batchHandler?: never } | { batchHandler: BatchEventHandler<DB>; handler?: never };

export type ConsumerOptions<DB> = ConsumerCommonOptions<DB> & ConsumerHandlerOptions<DB>;

export interface ConsumerCommonOptions<DB> {
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
  /** The durable name: replicas sharing it share the work; it labels the metrics and inbox rows. */
  durable: string;
  /** One subject (any server) or several (NATS ≥ 2.10). */
  filterSubjects: string[];
  /** A kysely instance bound to the schema holding `inbox` (search_path). */
  db: Kysely<DB>;
  /** For log lines only; the tables resolve through the db's search_path. */
  schema?: string;
  /** Transactions (batches) running at once in this replica (default 4). */
  concurrency?: number;
  /**
   * Most events handled in one transaction (default 32): the messages already received when a
   * transaction starts, up to this many (see lingerMs). 1 gives one transaction per event.
   */
  batchSize?: number;
  /**
   * While another transaction of this consumer runs, how long a batch that is not full waits
   * for more messages before it starts (default 5 ms). With nothing else running it starts at
   * once, so a lone event is not delayed; 0 never waits.
   */
  lingerMs?: number;
  /**
   * How long a batch waits for more messages even when nothing else runs (default 0). For
   * consumers whose effects may trail their events by a few ms (projections, fan-out): under a
   * steady trickle each event would otherwise pay a whole transaction of its own.
   */
  gatherMs?: number;
  logger: Logger;
  registry?: Registry;
  /** Redelivery after this long without an ack (default 30 s); long handlers are kept alive. */
  ackWaitMs?: number;
  /** Deliveries before an event is given up (terminated and logged); default 20, -1 for never. */
  maxDeliver?: number;
  /** Delay before redelivering a failed event, by delivery count (default 1 s doubling, max 60 s). */
  retryDelayMs?: (deliveryCount: number) => number;
  /** How often consumer_lag is refreshed (default 5 s). */
  lagIntervalMs?: number;
  /**
   * Whether an event can have any effect here. One it declines is acked at once, with no
   * transaction and no inbox row (outcome `skipped`): for consumers that ignore most events
   * (the fan-out, for organisations without endpoints), so those cost no commit. It must not
   * need the transaction, and answering true is always safe; a throw counts as true (the
   * handler then decides). A declined event that comes again is asked again.
   */
  wants?: (event: ConsumedEvent) => boolean | Promise<boolean>;
  /**
   * Sees each event the moment it is received, before its transaction waits for a turn: when
   * every transaction slot waits on a slow commit, events keep being received and shown here.
   * For work that may start before the event's effects are committed (the fan-out starts its
   * attempts here: at least once). An event joins a batch once what this answered has settled
   * (a throw is logged and ignored), so the handler finds what it prepared, by the event
   * object; batches then take events in the order they became ready, which is stream order
   * only as far as `onReceived` keeps it. An event waiting here holds no transaction slot.
   */
  onReceived?: (event: ConsumedEvent) => void | Promise<void>;
  /** Called once per event that `onReceived` saw, after it was acked, nak'ed or terminated: whatever the handler did not take is to be let go. */
  onSettled?: (event: ConsumedEvent) => void;
}

export interface RunningConsumer {
  /** Stops pulling, waits for the handlers in flight to finish (and ack), stops the lag poll. */
  stop(): Promise<void>;
}

type ConsumerMessages = Awaited<ReturnType<Awaited<ReturnType<JetStreamClient['consumers']['get']>>['consume']>>;

/** A received message, its event, and whether `onReceived`'s work on it has settled (it may join a batch). */
interface Received {
  m: JsMsg;
  event: ConsumedEvent;
  ready: boolean;
}

/** Received messages in arrival order; batches take the ready ones. */
class ReceivedQueue {
  readonly items: Received[] = [];
  ready = 0;

  /** Up to `n` ready items, oldest first, taken out of the queue. */
  take(n: number): Received[] {
    const taken: Received[] = [];
    for (let i = 0; i < this.items.length && taken.length < n; ) {
      if (this.items[i]!.ready) taken.push(...this.items.splice(i, 1));
      else i += 1;
    }
    this.ready -= taken.length;
    return taken;
  }
}

const defaultRetryDelay = (n: number) => Math.min(60_000, 1_000 * 2 ** Math.max(0, n - 1));

/**
 * A durable pull consumer with explicit acks, bounded concurrency, batching and inbox dedupe.
 *
 * The messages already received (up to `batchSize`) are handled in one transaction: one
 * multi-row inbox insert (`on conflict do nothing`), then the handler of each event that was
 * not in the inbox yet, in stream order (or the batchHandler once, with all of them); one commit, then every message is acked. When the
 * batch fails (a handler throws, a deadlock, the commit), it is rolled back and each of its
 * messages is handled in a transaction of its own, so only a failing event is nak'ed. A lone
 * message takes that per-event path directly. Delivery is at least once; the inbox makes the
 * effects exactly once. Events the `wants` option declines are acked first, without any of this.
 */
export async function startConsumer<DB>(opts: ConsumerOptions<DB>): Promise<RunningConsumer> {
  const log = opts.logger.child({ component: 'consumer', consumer: opts.durable, stream: opts.stream, schema: opts.schema });
  const registry = opts.registry ?? new Registry();
  const concurrency = Math.max(1, opts.concurrency ?? 4);
  const batchSize = Math.max(1, opts.batchSize ?? 32);
  const lingerMs = Math.max(0, opts.lingerMs ?? 5);
  const gatherMs = Math.max(0, opts.gatherMs ?? 0);
  const ackWaitMs = opts.ackWaitMs ?? 30_000;
  const maxDeliver = opts.maxDeliver ?? 20;
  const retryDelay = opts.retryDelayMs ?? defaultRetryDelay;
  const labels = { consumer: opts.durable };
  // The types demand exactly one; a plain-JS caller or a cast could still pass both or none.
  if ((opts.handler === undefined) === (opts.batchHandler === undefined)) throw new Error('startConsumer needs exactly one of handler and batchHandler');
  const single = opts.handler;
  const batched = opts.batchHandler;
  /** The fresh events of one transaction, in stream order, to whichever handler was given. */
  const handle = async (events: ConsumedEvent[], trx: Transaction<DB>, tx: TransactionHooks): Promise<void> => {
    if (events.length === 0) return;
    // Each event's handler in its own trace; a batch handler of several in a span linked to theirs.
    if (batched) return events.length === 1 ? inTrace(events[0]!, () => batched(events, trx, tx)) : inBatchTrace(opts.durable, events.map((e) => traces.get(e)), () => batched(events, trx, tx));
    for (const event of events) await inTrace(event, () => single!(event, trx, tx));
  };
  /** Runs `work` in a transaction, then the hooks the handlers registered for how it ended. */
  const inTransaction = async <T>(work: (trx: Transaction<DB>, tx: TransactionHooks) => Promise<T>): Promise<T> => {
    const committed: Array<() => void> = [];
    const rolledBack: Array<() => void> = [];
    const run = (fns: Array<() => void>) => {
      for (const fn of fns) {
        try {
          fn();
        } catch (err) {
          log.error({ err: errorMessage(err) }, 'a transaction hook failed');
        }
      }
    };
    let result: T;
    try {
      result = await opts.db.transaction().execute((trx) => work(trx, { afterCommit: (fn) => committed.push(fn), afterRollback: (fn) => rolledBack.push(fn) }));
    } catch (err) {
      run(rolledBack);
      throw err;
    }
    run(committed);
    return result;
  };

  const processed = counter(registry, 'consumer_processed_total', 'Events handled, by consumer and outcome (success, duplicate, skipped, failure, dead).', ['consumer', 'outcome']);
  const redeliveries = counter(registry, 'consumer_redeliveries_total', 'Events received again after a nak, a timeout or a crash.', ['consumer']);
  const lag = gauge(registry, 'consumer_lag', 'Events in the stream not yet delivered to the consumer (num_pending).', ['consumer']);
  const duration = histogram(registry, 'consumer_processing_duration_seconds', 'Time to handle one transaction (a batch of events, or one), inbox and commit included.', ['consumer'], [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
  ]);
  const batchEvents = histogram(registry, 'consumer_batch_size', 'Events handled per transaction.', ['consumer'], [1, 2, 4, 8, 16, 32, 64, 128]);
  const fallbacks = counter(registry, 'consumer_batch_fallbacks_total', 'Batches rolled back and handled again one event per transaction.', ['consumer']);

  await ensureConsumer(opts.jsm, opts.stream, {
    durable_name: opts.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(ackWaitMs),
    max_deliver: maxDeliver,
    max_ack_pending: Math.max(1000, concurrency * batchSize * 2),
    ...(opts.filterSubjects.length === 1 ? { filter_subject: opts.filterSubjects[0] } : { filter_subjects: opts.filterSubjects }),
  });

  /** Each received event's trace (its CONSUMER span, from receipt to settling), by event. */
  const traces = new WeakMap<ConsumedEvent, EventTrace>();
  const eventOf = (m: JsMsg): ConsumedEvent => {
    const event: ConsumedEvent = {
      id: m.headers?.get('Nats-Msg-Id') || `${m.info.stream}:${m.seq}`,
      subject: m.subject,
      type: m.headers?.get(EVENT_TYPE_HEADER) || undefined,
      orgId: m.headers?.get(ORG_ID_HEADER) || undefined,
      payload: m.data,
      deliveryCount: m.info.deliveryCount,
      redelivered: m.info.redelivered,
      streamSequence: m.seq,
      traceparent: m.headers?.get(TRACEPARENT_HEADER) || undefined,
    };
    traces.set(event, receiveTrace(event.subject, event.id, opts.durable, event.traceparent));
    return event;
  };
  const inTrace = <T>(event: ConsumedEvent, fn: () => T): T => inEventTrace(traces.get(event), fn);
  const settled = (event: ConsumedEvent, outcome: string, err?: unknown) => settleTrace(traces.get(event), outcome, err);

  /** A handler slower than ack_wait keeps its messages: tell the server they are still being worked on. */
  const keepAlive = (ms: JsMsg[]) => setInterval(() => ms.forEach((m) => m.working()), Math.max(500, ackWaitMs / 2));

  const observe = (started: bigint, events: number) => {
    duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    batchEvents.observe(labels, events);
  };

  /** One event in its own transaction: success acks, failure naks with a delay (or terminates). */
  async function handleOne(m: JsMsg, event: ConsumedEvent): Promise<void> {
    const started = process.hrtime.bigint();
    const alive = keepAlive([m]);
    try {
      const fresh = await inTrace(event, () =>
        inTransaction(async (trx, tx) => {
          const inserted = await sql`
            insert into inbox (consumer, event_id) values (${opts.durable}, ${event.id})
            on conflict do nothing returning event_id`.execute(trx);
          if (inserted.rows.length === 0) return false;
          await handle([event], trx, tx);
          return true;
        }),
      );
      m.ack();
      settled(event, fresh ? 'success' : 'duplicate');
      processed.inc({ ...labels, outcome: fresh ? 'success' : 'duplicate' });
      if (!fresh) log.debug({ eventId: event.id }, 'event already processed; acked');
    } catch (err) {
      if (maxDeliver > 0 && event.deliveryCount >= maxDeliver) {
        m.term(`failed ${event.deliveryCount} times`);
        settled(event, 'dead', err);
        processed.inc({ ...labels, outcome: 'dead' });
        log.error({ eventId: event.id, subject: event.subject, deliveries: event.deliveryCount, err: errorMessage(err) }, 'event failed for the last time; given up');
      } else {
        const delay = retryDelay(event.deliveryCount);
        m.nak(delay);
        settled(event, 'failure', err);
        processed.inc({ ...labels, outcome: 'failure' });
        log.warn({ eventId: event.id, subject: event.subject, deliveries: event.deliveryCount, retryInMs: delay, err: errorMessage(err) }, 'event handler failed; will retry');
      }
    } finally {
      clearInterval(alive);
      observe(started, 1);
    }
  }

  /** Acks the events `wants` declines; answers the rest, in stream order. */
  async function withoutDeclined(msgs: JsMsg[], events: ConsumedEvent[]): Promise<{ msgs: JsMsg[]; events: ConsumedEvent[] }> {
    const wants = opts.wants;
    if (!wants) return { msgs, events };
    const wanted = await Promise.all(events.map((e) => inTrace(e, () => Promise.resolve(e).then(wants)).catch(() => true)));
    if (wanted.every(Boolean)) return { msgs, events };
    wanted.forEach((w, i) => {
      if (w) return;
      msgs[i]!.ack();
      settled(events[i]!, 'skipped');
      processed.inc({ ...labels, outcome: 'skipped' });
    });
    return { msgs: msgs.filter((_, i) => wanted[i]), events: events.filter((_, i) => wanted[i]) };
  }

  async function handleBatch(received: Received[]): Promise<void> {
    const all = received.map((r) => r.event);
    for (const e of all) if (e.redelivered) redeliveries.inc(labels);
    const { msgs, events } = await withoutDeclined(
      received.map((r) => r.m),
      all,
    );
    if (msgs.length === 0) return;
    if (msgs.length === 1) return handleOne(msgs[0]!, events[0]!);
    const started = process.hrtime.bigint();
    const alive = keepAlive(msgs);
    let fresh: boolean[];
    try {
      fresh = await inTransaction(async (trx, tx) => {
        const inserted = await sql<{ event_id: string }>`
          insert into inbox (consumer, event_id)
          select ${opts.durable}, id from unnest(${events.map((e) => e.id)}::text[]) as id
          on conflict do nothing returning event_id`.execute(trx);
        // An id twice in one batch (a redelivery that caught up with the first copy) is new
        // at most once: its first occurrence, in stream order.
        const isNew = new Set(inserted.rows.map((r) => r.event_id));
        const out = events.map((event) => isNew.delete(event.id));
        await handle(events.filter((_, i) => out[i]), trx, tx);
        return out;
      });
    } catch (err) {
      clearInterval(alive);
      fallbacks.inc(labels);
      log.info({ events: msgs.length, err: errorMessage(err) }, 'batch rolled back; handling its events one by one');
      // Sequential, so stream order holds here too.
      for (const [i, m] of msgs.entries()) await handleOne(m, events[i]!);
      return;
    }
    clearInterval(alive);
    for (const [i, m] of msgs.entries()) {
      m.ack();
      settled(events[i]!, fresh[i] ? 'success' : 'duplicate');
      processed.inc({ ...labels, outcome: fresh[i] ? 'success' : 'duplicate' });
    }
    observe(started, msgs.length);
  }

  let stopping = false;
  let messages: ConsumerMessages | undefined;
  const pause = new Sleeper();
  const inflight = new Set<Promise<void>>();

  const consumer = await opts.js.consumers.get(opts.stream, opts.durable);

  const refreshLag = async () => {
    try {
      const info: ConsumerInfo = await consumer.info();
      lag.set(labels, info.num_pending);
    } catch (err) {
      log.debug({ err: errorMessage(err) }, 'consumer info failed');
    }
  };
  await refreshLag();
  const lagTimer = setInterval(() => void refreshLag(), opts.lagIntervalMs ?? 5_000);
  lagTimer.unref();

  /**
   * Receives messages into `queue` as fast as the server sends them (at most max_ack_pending
   * are unacked), showing each to `onReceived` at once; batches are taken from the queue as
   * transaction slots free. Ends when the subscription does (stop, or an error it throws).
   */
  async function receive(messages: ConsumerMessages, queue: ReceivedQueue, arrived: Sleeper): Promise<void> {
    for await (const m of messages) {
      const event = eventOf(m);
      const item: Received = { m, event, ready: !opts.onReceived };
      queue.items.push(item);
      if (opts.onReceived) {
        const onReceived = opts.onReceived;
        // In the event's trace: work it starts (the fan-out's first attempts) joins it.
        void inTrace(event, () => Promise.resolve(event).then(onReceived))
          .catch((err: unknown) => log.warn({ eventId: event.id, err: errorMessage(err) }, 'onReceived failed; the event is handled without it'))
          .then(() => {
            item.ready = true;
            queue.ready += 1;
            arrived.wake();
          });
      } else queue.ready += 1;
      arrived.wake();
    }
  }

  /** Waits until `queue` holds a full batch of ready events, `ms` passed, or `cut` resolved (whichever first). */
  async function gather(queue: ReceivedQueue, arrived: Sleeper, ms: number, cut: Promise<unknown> | undefined, ended: () => boolean): Promise<void> {
    const deadline = Date.now() + ms;
    let cutShort = false;
    void cut?.then(() => {
      cutShort = true;
      arrived.wake();
    });
    while (queue.ready < batchSize && !cutShort && !ended() && Date.now() < deadline) await arrived.wait(deadline - Date.now());
  }

  const settle = (batch: Received[]) => {
    const settled = opts.onSettled;
    if (!settled) return;
    for (const r of batch) {
      try {
        settled(r.event);
      } catch (err) {
        log.error({ eventId: r.event.id, err: errorMessage(err) }, 'onSettled failed');
      }
    }
  };

  const loop = (async () => {
    while (!stopping) {
      try {
        // Enough in hand to fill every batch slot; the client pulls more as these are taken.
        messages = await consumer.consume({ max_messages: concurrency * batchSize });
        if (stopping) messages.stop();
        const queue = new ReceivedQueue();
        const arrived = new Sleeper();
        let ended = false;
        const receiving = receive(messages, queue, arrived).finally(() => {
          ended = true;
          arrived.wake();
        });
        // Its failure is rethrown by the await below, once the queue is drained; until then
        // this handler keeps Node from taking it for an unhandled rejection.
        receiving.catch(() => undefined);
        // What was received is handled, also after a stop: onReceived may have started work on it.
        while (queue.items.length > 0 || !ended) {
          if (queue.ready === 0) {
            await arrived.wait(60_000);
            continue;
          }
          // Alone, a batch takes what has already arrived and starts. Beside a running one, it
          // lingers for more (until full, lingerMs, or nothing else runs): otherwise, with
          // several slots free, a steady flow is cut into batches of one or two and each pays
          // its own commit again. With gatherMs it waits that long in any case (the others
          // finishing does not cut it).
          const waitMs = inflight.size > 0 ? Math.max(lingerMs, gatherMs) : gatherMs;
          if (waitMs > 0) await gather(queue, arrived, waitMs, inflight.size > 0 && gatherMs === 0 ? Promise.all(inflight) : undefined, () => ended);
          // What the client holds already reaches the queue within a turn.
          else await new Promise((resolve) => setImmediate(resolve));
          const batch = queue.take(batchSize);
          const p: Promise<void> = handleBatch(batch).finally(() => {
            inflight.delete(p);
            settle(batch);
          });
          inflight.add(p);
          while (inflight.size >= concurrency) await Promise.race(inflight);
        }
        await receiving;
      } catch (err) {
        if (!stopping) log.warn({ err: errorMessage(err) }, 'consume failed; retrying');
      }
      if (!stopping) await pause.wait(1_000);
    }
    await Promise.all(inflight);
  })();

  log.info({ filterSubjects: opts.filterSubjects, concurrency, batchSize, lingerMs, gatherMs }, 'consumer started');
  return {
    async stop() {
      if (!stopping) {
        stopping = true;
        clearInterval(lagTimer);
        messages?.stop();
        pause.wake();
      }
      await loop;
    },
  };
}

/** Creates the durable consumer or brings its settings up to date: idempotent across replicas. */
async function ensureConsumer(jsm: JetStreamManager, stream: string, config: Partial<ConsumerConfig> & { durable_name: string }): Promise<void> {
  const existing = await consumerInfo(jsm, stream, config.durable_name);
  if (!existing) {
    try {
      await jsm.consumers.add(stream, config);
      return;
    } catch (err) {
      if (!(await consumerInfo(jsm, stream, config.durable_name))) throw err;
    }
  }
  const current = existing?.config ?? (await consumerInfo(jsm, stream, config.durable_name))?.config;
  const keys = ['ack_wait', 'max_deliver', 'max_ack_pending', 'filter_subject', 'filter_subjects'] as const;
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  if (current && keys.every((k) => config[k] === undefined || same(config[k], current[k]))) return;
  const update: Partial<ConsumerConfig> = {};
  for (const k of keys) if (config[k] !== undefined) Object.assign(update, { [k]: config[k] });
  await jsm.consumers.update(stream, config.durable_name, update);
}

async function consumerInfo(jsm: JetStreamManager, stream: string, durable: string): Promise<ConsumerInfo | undefined> {
  try {
    return await jsm.consumers.info(stream, durable);
  } catch (err) {
    if (err instanceof JetStreamApiError && err.status === 404) return undefined;
    throw err;
  }
}
