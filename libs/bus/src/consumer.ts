import type { ConsumerInfo, JetStreamClient } from '@nats-io/jetstream';
import { Registry } from 'prom-client';
import { batchRunner } from './consumer/batch-runner.ts';
import { consumerMetrics } from './consumer/consumer-metrics.ts';
import { ensureConsumer } from './consumer/ensure-consumer.ts';
import { EventTraces } from './consumer/event-traces.ts';
import { gather, ReceivedQueue, type Received } from './consumer/received-queue.ts';
import { consumerSettings, durableConfig } from './consumer/settings.ts';
import type { ConsumerOptions, RunningConsumer } from './consumer/types.ts';
import { errorMessage } from './metrics.ts';
import { Sleeper } from './sleeper.ts';

export { inboxMigration } from './consumer/inbox.ts';
export type { BatchEventHandler, ConsumedEvent, ConsumerOptions, EventHandler, RunningConsumer, TransactionHooks } from './consumer/types.ts';

type ConsumerMessages = Awaited<ReturnType<Awaited<ReturnType<JetStreamClient['consumers']['get']>>['consume']>>;

/**
 * A durable pull consumer with explicit acks, bounded concurrency, batching and inbox dedupe.
 *
 * The messages already received (up to `batchSize`) are handled in one transaction: one
 * multi-row inbox insert (`on conflict do nothing`), then the handler of each event that was
 * not in the inbox yet, in stream order (or the batchHandler once, with all of them); one
 * commit, then every message is acked (consumer/batch-runner.ts). When the batch fails (a
 * handler throws, a deadlock, the commit), it is rolled back and each of its messages is
 * handled in a transaction of its own, so only a failing event is nak'ed. A lone message takes
 * that per-event path directly. Delivery is at least once; the inbox makes the effects exactly
 * once. Events the `wants` option declines are acked first, without any of this.
 *
 * This file is the pull loop: receiving into a queue, cutting batches, bounding the batches in
 * flight, and stopping.
 */
export async function startConsumer<DB>(opts: ConsumerOptions<DB>): Promise<RunningConsumer> {
  const log = opts.logger.child({ component: 'consumer', consumer: opts.durable, stream: opts.stream, schema: opts.schema });
  const settings = consumerSettings(opts);
  const { concurrency, batchSize, lingerMs, gatherMs } = settings;
  const labels = { consumer: opts.durable };
  // The types demand exactly one; a plain-JS caller or a cast could still pass both or none.
  if ((opts.handler === undefined) === (opts.batchHandler === undefined)) throw new Error('startConsumer needs exactly one of handler and batchHandler');
  const metrics = consumerMetrics(opts.registry ?? new Registry());
  const traces = new EventTraces(opts.durable);
  const handleBatch = batchRunner({ opts, settings, metrics, traces, log });

  await ensureConsumer(opts.jsm, opts.stream, durableConfig(opts.durable, opts.filterSubjects, settings));

  let stopping = false;
  let messages: ConsumerMessages | undefined;
  const pause = new Sleeper();
  const inflight = new Set<Promise<void>>();

  const consumer = await opts.js.consumers.get(opts.stream, opts.durable);

  const refreshLag = async () => {
    try {
      const info: ConsumerInfo = await consumer.info();
      metrics.lag.set(labels, info.num_pending);
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
      const event = traces.receive(m);
      const item: Received = { m, event, ready: !opts.onReceived };
      queue.items.push(item);
      if (opts.onReceived) {
        const onReceived = opts.onReceived;
        // In the event's trace: work it starts (the fan-out's first attempts) joins it.
        void traces
          .within(event, () => Promise.resolve(event).then(onReceived))
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

  /** Tells `onSettled` about each event of a batch once the batch is done. */
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

  /** Cuts batches from one subscription's queue until it ended and the queue is empty. */
  async function drain(queue: ReceivedQueue, arrived: Sleeper, ended: () => boolean): Promise<void> {
    // What was received is handled, also after a stop: onReceived may have started work on it.
    while (queue.items.length > 0 || !ended()) {
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
      if (waitMs > 0) await gather(queue, arrived, batchSize, waitMs, inflight.size > 0 && gatherMs === 0 ? Promise.all(inflight) : undefined, ended);
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
  }

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
        await drain(queue, arrived, () => ended);
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
