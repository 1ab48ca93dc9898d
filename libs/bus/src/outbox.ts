import { headers, type MsgHdrs } from '@nats-io/nats-core';
import type { JetStreamClient } from '@nats-io/jetstream';
import { v7 as uuidv7 } from 'uuid';
import { sql, type Kysely, type Migration } from 'kysely';
import pg from 'pg';
import { Registry } from 'prom-client';
import type { Logger } from '@preflight/log';
import { counter, errorMessage, gauge } from './metrics.ts';
import { Sleeper } from './sleeper.ts';
import { listenFor } from '@preflight/db';
import { EVENT_TYPE_HEADER, ORG_ID_HEADER } from '@preflight/events';
import { publishTrace, traceparentToStore, TRACEPARENT_HEADER } from './tracing.ts';

// Headers every relayed message carries besides `Nats-Msg-Id` (= the event id): declared with the events.
export { EVENT_TYPE_HEADER, ORG_ID_HEADER } from '@preflight/events';

/**
 * The `outbox` table, for a service to add to its own migration list (for example as
 * `0002_outbox`). Created in the schema the migrator's connection resolves to (search_path).
 * `seq` gives the relay an insertion order that also orders the events of one transaction.
 * (`traceparent` was added later: a schema created before has it from `outboxTraceparentMigration`.)
 */
export const outboxMigration: Migration = {
  async up(db) {
    await sql`
      create table outbox (
        id uuid primary key,
        seq bigint generated always as identity,
        subject text not null,
        type text not null,
        payload bytea not null,
        org_id uuid,
        created_at timestamptz not null default clock_timestamp(),
        published_at timestamptz,
        attempts integer not null default 0,
        last_error text,
        traceparent text
      )`.execute(db);
    await sql`create index outbox_unpublished on outbox (seq) where published_at is null`.execute(db);
    await sql`create index outbox_published on outbox (published_at) where published_at is not null`.execute(db);
  },
  async down(db) {
    await sql`drop table outbox`.execute(db);
  },
};

/**
 * The outbox's `traceparent` column: the W3C trace context of the request that enqueued the
 * event, which the relay passes on in the message's `traceparent` header (docs/operations.md,
 * "Reading a trace"). `outboxMigration` creates it in a new schema; this adds it to one created
 * before (idempotent): list it after the migration that ran `outboxMigration`.
 */
export const outboxTraceparentMigration: Migration = {
  async up(db) {
    await sql`alter table outbox add column if not exists traceparent text`.execute(db);
  },
  async down(db) {
    await sql`alter table outbox drop column if exists traceparent`.execute(db);
  },
};

export interface OutboxEvent {
  /** The event id (a UUID): becomes `Nats-Msg-Id` and the public envelope id. Generated when absent. */
  id?: string;
  subject: string;
  /** The fully qualified protobuf type name (libs/events `encodeEvent` gives subject, type, payload). */
  type: string;
  payload: Uint8Array;
  orgId?: string | null;
}

/**
 * Relays running in this process, with the pool they were given. A writer whose connection is
 * checked out of such a pool (and whose schema is the relay's) needs no NOTIFY: the relay sees
 * the connection go back to the pool, which kysely does only after COMMIT (or ROLLBACK) has
 * answered, and wakes then. See `enqueueEvent`.
 */
interface LocalRelay {
  schema: string;
  /** Backend pids of the pool's connections checked out right now. */
  checkedOut: Set<number>;
  /** Connections that enqueued an event in their current transaction: wake when they return. */
  awaiting: Set<number>;
}
const localRelays = new Set<LocalRelay>();

const backendPid = (client: pg.PoolClient): number | undefined => (client as unknown as { processID?: number | null }).processID ?? undefined;

/**
 * A new event id: a time-ordered UUID (v7), so each new outbox row (and inbox row downstream)
 * lands at the right edge of its primary-key index instead of on a random page. Random (v4)
 * keys touch a different leaf page per row, and after every checkpoint the first change to a
 * page writes the whole 8 KB page to the WAL.
 */
export function newEventId(): string {
  return uuidv7();
}

/**
 * Puts an event in the outbox inside the caller's transaction, so it exists if and only if
 * the state change commits, and makes sure a relay wakes when it commits. Returns the event id.
 * Refuses to run outside a transaction.
 *
 * The wake-up: when a relay of this process serves the schema through the pool the
 * transaction's connection came from, that relay wakes when the connection is released after
 * the commit, and no NOTIFY is sent. Otherwise (a process without a relay, a script) it runs
 * `pg_notify(<schema>_outbox)`, delivered by Postgres at commit. Avoiding the NOTIFY matters:
 * a transaction that has issued one takes a cluster-wide lock at commit and holds it until its
 * commit record is flushed, so notifying writers commit one at a time (docs/events.md).
 */
export async function enqueueEvent(trx: Kysely<any>, event: OutboxEvent): Promise<string> {
  const [id] = await enqueueEvents(trx, [event]);
  return id!;
}

/** `enqueueEvent` for several events at once: one statement, rows (and so stream order) in the given order. */
export async function enqueueEvents(trx: Kysely<any>, events: OutboxEvent[]): Promise<string[]> {
  if (!trx.isTransaction) throw new Error('enqueueEvent must run inside the transaction that changes the state');
  if (events.length === 0) return [];
  const ids = events.map((e) => e.id ?? newEventId());
  const payloads = events.map((e) => Buffer.from(e.payload.buffer, e.payload.byteOffset, e.payload.byteLength));
  // `<pid>:<schema>` of every connection a local relay would see come back; the statement
  // notifies only when this connection is not one of them (one round trip either way).
  const local: string[] = [];
  for (const r of localRelays) for (const pid of r.checkedOut) local.push(`${pid}:${r.schema}`);
  // A plain multi-row insert whose RETURNING carries the wake-up decision: a data-modifying
  // CTE over unnest() did the same but took Postgres longer to plan (libs/bus README).
  // Notifications of one transaction with the same channel and payload are folded into one.
  // The trace of the request (or span) that enqueues them, for the relay to pass on.
  const traceparent = traceparentToStore();
  const values = sql.join(
    events.map((e, i) => sql`(${ids[i]}::uuid, ${e.subject}, ${e.type}, ${payloads[i]}::bytea, ${e.orgId ?? null}::uuid, ${traceparent})`),
  );
  const { rows } = await sql<{ pid: number; schema: string; notified: number }>`
    insert into outbox (id, subject, type, payload, org_id, traceparent) values ${values}
    returning pg_backend_pid() as pid, current_schema() as schema,
      case when pg_backend_pid() || ':' || current_schema() <> all(${local}::text[])
        then (select 1 from pg_notify(current_schema() || '_outbox', '')) else 0 end as notified`.execute(trx);
  const row = rows[0];
  if (row && row.notified === 0) {
    for (const r of localRelays) if (r.schema === row.schema && r.checkedOut.has(row.pid)) r.awaiting.add(row.pid);
  }
  return ids;
}

/** The NOTIFY channel of a schema's outbox. */
export const outboxChannel = (schema: string): string => `${schema}_outbox`;

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

interface OutboxRow {
  id: string;
  seq: number | string;
  subject: string;
  type: string;
  payload: Buffer;
  org_id: string | null;
  traceparent: string | null;
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

  async function drainBatch(): Promise<{ claimed: number; failed: boolean }> {
    return opts.db.transaction().execute(async (trx) => {
      // Claimed and marked at once: the row locks taken here hold until commit, and a rollback
      // undoes the mark, so the mark can come before the publish (one statement, one write per
      // row, instead of a select that locks and an update after).
      // The same statement turns synchronous_commit off for this transaction (`set_config(…,
      // true)` is `set local`; evaluated once, before the scan): marking rows published need
      // not wait for a disk flush, since a mark lost in a crash only means the rows are
      // published again with the same Nats-Msg-Id, which JetStream drops (and the consumers'
      // inbox catches past the duplicate window). A statement of its own cost a round trip per claim.
      const claimed = await sql<OutboxRow>`
        update outbox set published_at = now(), attempts = attempts + 1, last_error = null
        where (select set_config('synchronous_commit', 'off', true)) = 'off'
          and id in (
            select id from outbox
            where published_at is null
            order by seq
            limit ${batchSize}
            for update skip locked)
        returning id, seq, subject, type, payload, org_id, traceparent`.execute(trx);
      const rows = claimed.rows.sort((a, b) => Number(a.seq) - Number(b.seq));
      // Publish the whole batch before awaiting any ack: messages go out on one connection in
      // claim order, so the stream keeps that order, and a batch costs one round trip instead of
      // one per event. Rows up to the first failure stay marked; the failed row and those after
      // it go back to unpublished and go again (a later one that did land is dropped as a
      // duplicate).
      const acks = await Promise.allSettled(
        rows.map((row) => {
          const h: MsgHdrs = headers();
          h.set(EVENT_TYPE_HEADER, row.type);
          if (row.org_id) h.set(ORG_ID_HEADER, row.org_id);
          const traced = publishTrace(row.subject, row.id, row.traceparent);
          if (traced.traceparent) h.set(TRACEPARENT_HEADER, traced.traceparent);
          const published = opts.js.publish(row.subject, row.payload, { msgID: row.id, headers: h, timeout: publishTimeoutMs });
          published.then(() => traced.end(), traced.end);
          return published;
        }),
      );
      let done = 0;
      let failure: { id: string; error: string } | undefined;
      for (const [i, ack] of acks.entries()) {
        const row = rows[i]!;
        if (ack.status === 'rejected') {
          failure = { id: row.id, error: errorMessage(ack.reason) };
          break;
        }
        if (ack.value.duplicate) log.info({ eventId: row.id }, 'outbox row was already in the stream (duplicate dropped)');
        done += 1;
      }
      if (failure) {
        // Only the failed row counts an attempt; the ones after it were not really tried.
        const undo = rows.slice(done).map((r) => r.id);
        await sql`
          update outbox set published_at = null,
            attempts = case when id = ${failure.id} then attempts else attempts - 1 end,
            last_error = case when id = ${failure.id} then ${failure.error} else null end
          where id = any(${undo}::uuid[])`.execute(trx);
        log.warn({ eventId: failure.id, err: failure.error }, 'outbox publish failed');
        failures.inc();
      }
      published.inc(done);
      return { claimed: rows.length, failed: failure !== undefined };
    });
  }

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

/**
 * Registers a relay of this process for `enqueueEvent`'s wake-up (see `LocalRelay`): tracks
 * which of the pool's connections are checked out, and calls `onCommit` when one that
 * enqueued an event comes back. pg-pool emits `release` synchronously from `client.release()`,
 * which kysely calls once COMMIT has answered, so the rows are visible to the next claim.
 */
function watchPool(pool: pg.Pool, schema: string, onCommit: () => void): { close(): void } {
  const relay: LocalRelay = { schema, checkedOut: new Set(), awaiting: new Set() };
  const onAcquire = (client: pg.PoolClient) => {
    const pid = backendPid(client);
    if (pid !== undefined) relay.checkedOut.add(pid);
  };
  const onRelease = (_err: Error, client: pg.PoolClient) => {
    const pid = backendPid(client);
    if (pid === undefined) return;
    relay.checkedOut.delete(pid);
    if (relay.awaiting.delete(pid)) onCommit();
  };
  pool.on('acquire', onAcquire);
  pool.on('release', onRelease);
  localRelays.add(relay);
  return {
    close() {
      localRelays.delete(relay);
      pool.off('acquire', onAcquire);
      // Writers still in a transaction get no wake-up from this relay any more: their rows wait
      // for another replica's poll or the next relay's drain at start, as after a crash.
      pool.off('release', onRelease);
    },
  };
}
