import { sql, type Kysely } from '@preflight/db';

/**
 * A delivery row is written two or three times (inserted, moved on by its attempt, maybe its
 * outcome marked), and every write of a non-HOT update copies the whole row into the WAL and
 * a new index entry into each index. So:
 *
 * - The body moves to `delivery_envelopes`, one row per (event, public event type), shared by
 *   every endpoint that receives it: written once per event instead of once per endpoint, and
 *   never rewritten. The row left behind is about a fifth of the size.
 * - The unique (event_id, endpoint_id, event_type) index goes: the fan-out runs in the bus
 *   consumer's transaction after its inbox row, which already makes a redelivered event fan
 *   out once (a concurrent duplicate waits on the inbox row and then finds it), so the index
 *   only cost an entry per row version.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table delivery_envelopes (
      event_id text not null,
      event_type text not null,
      -- The exact body bytes sent at every attempt (serialised once, UTF-8 JSON text).
      body text not null,
      created_at timestamptz not null default now(),
      primary key (event_id, event_type)
    )`.execute(db);
  await sql`
    insert into delivery_envelopes (event_id, event_type, body)
    select distinct on (event_id, event_type) event_id, event_type, envelope from deliveries
    order by event_id, event_type`.execute(db);
  await sql`alter table deliveries drop column envelope`.execute(db);
  await sql`alter table deliveries drop constraint deliveries_event_id_endpoint_id_event_type_key`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table deliveries add column envelope text`.execute(db);
  await sql`update deliveries d set envelope = e.body from delivery_envelopes e where e.event_id = d.event_id and e.event_type = d.event_type`.execute(db);
  await sql`alter table deliveries alter column envelope set not null`.execute(db);
  await sql`alter table deliveries add constraint deliveries_event_id_endpoint_id_event_type_key unique (event_id, endpoint_id, event_type)`.execute(db);
  await sql`drop table delivery_envelopes`.execute(db);
}
