import { sql, type Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { traceparentToStore } from '../tracing.ts';
import { localRelays } from './local-relays.ts';

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
