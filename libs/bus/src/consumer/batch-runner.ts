import type { JsMsg } from '@nats-io/jetstream';
import type { Transaction } from 'kysely';
import type { Logger } from '@preflight/log';
import { errorMessage } from '../metrics.ts';
import type { ConsumerMetrics } from './consumer-metrics.ts';
import type { EventTraces } from './event-traces.ts';
import { recordInInbox } from './inbox.ts';
import type { Received } from './received-queue.ts';
import { afterFailure, type ConsumerSettings } from './settings.ts';
import { inTransaction } from './transaction.ts';
import type { ConsumedEvent, ConsumerOptions, TransactionHooks } from './types.ts';

export interface BatchRunnerDeps<DB> {
  opts: Pick<ConsumerOptions<DB>, 'db' | 'durable' | 'handler' | 'batchHandler' | 'wants'>;
  settings: ConsumerSettings;
  metrics: ConsumerMetrics;
  traces: EventTraces;
  log: Logger;
}

/**
 * Handles one batch of received messages (consumer.ts takes them from its queue): the events
 * `wants` declines are acked first; the rest go through the inbox and the handler in one
 * transaction, then are acked. A batch that fails is rolled back and its events handled again
 * one per transaction, so only a failing event is nak'ed (or, at its last delivery, terminated).
 */
export function batchRunner<DB>({ opts, settings, metrics, traces, log }: BatchRunnerDeps<DB>): (received: Received[]) => Promise<void> {
  const labels = { consumer: opts.durable };
  const single = opts.handler;
  const batched = opts.batchHandler;
  const count = (outcome: string) => metrics.processed.inc({ ...labels, outcome });

  /** The fresh events of one transaction, in stream order, to whichever handler was given. */
  const handle = async (events: ConsumedEvent[], trx: Transaction<DB>, tx: TransactionHooks): Promise<void> => {
    if (events.length === 0) return;
    // Each event's handler in its own trace; a batch handler of several in a span linked to theirs.
    if (batched) return events.length === 1 ? traces.within(events[0]!, () => batched(events, trx, tx)) : traces.withinBatch(events, () => batched(events, trx, tx));
    for (const event of events) await traces.within(event, () => single!(event, trx, tx));
  };

  /** A handler slower than ack_wait keeps its messages: tell the server they are still being worked on. */
  const keepAlive = (ms: JsMsg[]) => setInterval(() => ms.forEach((m) => m.working()), Math.max(500, settings.ackWaitMs / 2));

  const observe = (started: bigint, events: number) => {
    metrics.duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    metrics.batchEvents.observe(labels, events);
  };

  const acked = (m: JsMsg, event: ConsumedEvent, fresh: boolean) => {
    m.ack();
    traces.settle(event, fresh ? 'success' : 'duplicate');
    count(fresh ? 'success' : 'duplicate');
  };

  /** One event in its own transaction: success acks, failure naks with a delay (or terminates). */
  async function handleOne(m: JsMsg, event: ConsumedEvent): Promise<void> {
    const started = process.hrtime.bigint();
    const alive = keepAlive([m]);
    try {
      const [fresh] = await traces.within(event, () =>
        inTransaction(opts.db, log, async (trx, tx) => {
          const isNew = await recordInInbox(trx, opts.durable, [event.id]);
          if (isNew[0]) await handle([event], trx, tx);
          return isNew;
        }),
      );
      acked(m, event, fresh!);
      if (!fresh) log.debug({ eventId: event.id }, 'event already processed; acked');
    } catch (err) {
      const next = afterFailure(event.deliveryCount, settings);
      const fields = { eventId: event.id, subject: event.subject, deliveries: event.deliveryCount, err: errorMessage(err) };
      if (next.kind === 'dead') {
        m.term(`failed ${event.deliveryCount} times`);
        traces.settle(event, 'dead', err);
        count('dead');
        log.error(fields, 'event failed for the last time; given up');
      } else {
        m.nak(next.delayMs);
        traces.settle(event, 'failure', err);
        count('failure');
        log.warn({ ...fields, retryInMs: next.delayMs }, 'event handler failed; will retry');
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
    const wanted = await Promise.all(events.map((e) => traces.within(e, () => Promise.resolve(e).then(wants)).catch(() => true)));
    if (wanted.every(Boolean)) return { msgs, events };
    wanted.forEach((w, i) => {
      if (w) return;
      msgs[i]!.ack();
      traces.settle(events[i]!, 'skipped');
      count('skipped');
    });
    return { msgs: msgs.filter((_, i) => wanted[i]), events: events.filter((_, i) => wanted[i]) };
  }

  return async function handleBatch(received: Received[]): Promise<void> {
    const all = received.map((r) => r.event);
    for (const e of all) if (e.redelivered) metrics.redeliveries.inc(labels);
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
      fresh = await inTransaction(opts.db, log, async (trx, tx) => {
        const out = await recordInInbox(
          trx,
          opts.durable,
          events.map((e) => e.id),
        );
        await handle(
          events.filter((_, i) => out[i]),
          trx,
          tx,
        );
        return out;
      });
    } catch (err) {
      clearInterval(alive);
      metrics.fallbacks.inc(labels);
      log.info({ events: msgs.length, err: errorMessage(err) }, 'batch rolled back; handling its events one by one');
      // Sequential, so stream order holds here too.
      for (const [i, m] of msgs.entries()) await handleOne(m, events[i]!);
      return;
    }
    clearInterval(alive);
    for (const [i, m] of msgs.entries()) acked(m, events[i]!, fresh[i]!);
    observe(started, msgs.length);
  };
}
