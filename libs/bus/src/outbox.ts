import type { JetStreamClient } from '@nats-io/jetstream';
import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
import { Registry } from 'prom-client';
import { listenFor } from '@preflight/db';
import type { Logger } from '@preflight/log';
import { counter, errorMessage, gauge } from './metrics.ts';
import { outboxChannel } from './outbox/enqueue.ts';
import { watchPool } from './outbox/local-relays.ts';
import { publishBatch } from './outbox/publish-batch.ts';
import { Sleeper } from './sleeper.ts';

// Headers every relayed message carries besides `Nats-Msg-Id` (= the event id): declared with the events.
export { EVENT_TYPE_HEADER, ORG_ID_HEADER } from '@preflight/events';
export { outboxMigration, outboxTraceparentMigration } from './outbox/migrations.ts';
export { enqueueEvent, enqueueEvents, newEventId, outboxChannel, type OutboxEvent } from './outbox/enqueue.ts';
export { enqueueDomainEvent, enqueueDomainEvents, type EventTarget } from './outbox/domain-events.ts';

export interface OutboxRelayOptions {
  /** A kysely instance whose connections resolve to the service's schema (search_path). */
  db: Kysely<any>;
  /** The schema of the outbox table; names the NOTIFY channel. */
  schema: string;
  /**
   * Where to open the dedicated LISTEN connection: a pool (one client is held) or a URL. Give
   * the pool the service's writers use: the relay then wakes when a writer's connection comes
   * back to it after a commit that enqueued events, and those writers send no NOTIFY.
   */
  pool?: pg.Pool;
  url?: string;
  js: JetStreamClient;
  logger: Logger;
  /** Metrics go here (its default `service` label applies); a private registry when absent. */
  registry?: Registry;
  /** Rows claimed per transaction (default 100). */
  batchSize?: number;
  /** The safety poll, for a missed wake-up (default 1000 ms). */
  pollIntervalMs?: number;
  /** PubAck timeout per message (default 5000 ms). */
  publishTimeoutMs?: number;
  /** Backoff after a failed publish: doubling from `initialMs` to `maxMs` (default 200 ms → 30 s). */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Published rows older than this are deleted (default 7 days); 0 keeps them. */
  retentionMs?: number;
}

export interface OutboxRelay {
  /** Drain now (as a NOTIFY would). */
  wake(): void;
  /** Finishes the batch in flight, then stops and closes the LISTEN connection. */
  stop(): Promise<void>;
}

/**
 * Publishes committed outbox rows to JetStream, in order, each with `Nats-Msg-Id` = its id.
 *
 * - Wakes when a writer of this process that enqueued events returns its connection to `pool`
 *   after committing (see `enqueueEvent`), on NOTIFY `<schema>_outbox` (writers elsewhere),
 *   on a slow safety poll, and after (re)connecting the LISTEN connection; drains until a
 *   batch comes back short.
 * - Claims and marks rows in one statement (`update … where id in (select … for update skip
 *   locked)`) in a transaction that stays open while they are published, so several relays
 *   never publish the same row concurrently, and a rollback (crash, failed publish) leaves
 *   them unpublished.
 * - A crash after publishing and before the mark commits leaves the rows unpublished; they are
 *   published again with the same `Nats-Msg-Id`, which JetStream drops as a duplicate within
 *   its duplicate window. Nothing committed is lost, nothing is delivered twice.
 * - A batch is published with concurrent acks (one round trip per batch, stream order =
 *   claim order). A failed publish ends the batch's marking there (later rows stay
 *   unpublished and go again, in order), records `attempts` and `last_error`, and backs off.
 */
export function startOutboxRelay(opts: OutboxRelayOptions): OutboxRelay {
  const log = opts.logger.child({ component: 'outbox-relay', schema: opts.schema });
  const registry = opts.registry ?? new Registry();
  const batchSize = opts.batchSize ?? 100;
  const pollIntervalMs = opts.pollIntervalMs ?? 1_000;
  const publishTimeoutMs = opts.publishTimeoutMs ?? 5_000;
  const backoffInitial = opts.backoff?.initialMs ?? 200;
  const backoffMax = opts.backoff?.maxMs ?? 30_000;
  const retentionMs = opts.retentionMs ?? 7 * 24 * 3600_000;

  const backlog = gauge(registry, 'outbox_backlog', 'Outbox rows not yet published.');
  const oldestAge = gauge(registry, 'outbox_oldest_unpublished_age_seconds', 'Age of the oldest unpublished outbox row, 0 when none.');
  const published = counter(registry, 'outbox_published_total', 'Outbox rows published to JetStream.');
  const failures = counter(registry, 'outbox_publish_failures_total', 'Failed publishes of outbox rows.');

  const wakeup = new Sleeper();
  const backoffSleep = new Sleeper();
  let stopping = false;
  let consecutiveFailures = 0;
  let lastPrune = 0;
  let lastGauges = 0;

  const listener = listenFor({ pool: opts.pool, url: opts.url, channel: outboxChannel(opts.schema), onNotify: () => wakeup.wake(), logger: log, what: 'outbox' });
  const local = opts.pool ? watchPool(opts.pool, opts.schema, () => wakeup.wake()) : undefined;

  const drainBatch = () => publishBatch({ db: opts.db, js: opts.js, batchSize, publishTimeoutMs, log, published, failures });

  /** A count over unpublished rows; at most every 5 s, never per drain (it would double the load). */
  async function refreshGauges(): Promise<void> {
    if (Date.now() - lastGauges < 5_000) return;
    lastGauges = Date.now();
    const { rows } = await sql<{ n: number; age: number | null }>`
      select count(*)::int as n, extract(epoch from now() - min(created_at))::float8 as age
      from outbox where published_at is null`.execute(opts.db);
    backlog.set(rows[0]?.n ?? 0);
    oldestAge.set(Math.max(0, rows[0]?.age ?? 0));
  }

  async function pruneIfDue(): Promise<void> {
    if (retentionMs <= 0 || Date.now() - lastPrune < 10 * 60_000) return;
    lastPrune = Date.now();
    await sql`delete from outbox where published_at < now() - make_interval(secs => ${retentionMs / 1000})`.execute(opts.db);
  }

  const loop = (async () => {
    while (!stopping) {
      let result: { claimed: number; failed: boolean };
      try {
        result = await drainBatch();
      } catch (err) {
        log.warn({ err: errorMessage(err) }, 'outbox drain failed');
        result = { claimed: 0, failed: true };
      }
      try {
        await refreshGauges();
        await pruneIfDue();
      } catch (err) {
        log.debug({ err: errorMessage(err) }, 'outbox housekeeping failed');
      }
      if (stopping) break;
      if (result.failed) {
        consecutiveFailures += 1;
        await backoffSleep.wait(Math.min(backoffMax, backoffInitial * 2 ** (consecutiveFailures - 1)));
        continue;
      }
      consecutiveFailures = 0;
      if (result.claimed < batchSize) await wakeup.wait(pollIntervalMs);
    }
  })();

  return {
    wake: () => wakeup.wake(),
    async stop() {
      if (stopping) return loop;
      stopping = true;
      wakeup.wake();
      backoffSleep.wake();
      await loop;
      local?.close();
      await listener.close();
    },
  };
}
