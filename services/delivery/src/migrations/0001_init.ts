import { sql, type Kysely } from '@preflight/db';
import { inboxMigration } from '@preflight/bus';

/**
 * Deliveries (one per event and endpoint) and their attempts (the delivery log), plus the
 * bus inbox that makes the fan-out of a redelivered event happen once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await inboxMigration.up(db);

  await sql`
    create table deliveries (
      id uuid primary key,
      event_id text not null,
      event_type text not null,
      endpoint_id uuid not null,
      org_id uuid not null,
      url text not null,
      -- The exact body bytes sent at every attempt (serialised once, UTF-8 JSON text).
      envelope text not null,
      status text not null default 'pending' check (status in ('pending', 'delivered', 'failed', 'cancelled')),
      attempt_count integer not null default 0,
      -- When the next attempt is due; while an attempt is in flight, the end of its lease.
      next_attempt_at timestamptz not null default now(),
      leased_until timestamptz,
      lease_token uuid,
      created_at timestamptz not null default now(),
      finished_at timestamptz,
      -- The final outcome was reported to the webhook service (never for cancelled ones).
      outcome_reported_at timestamptz,
      unique (event_id, endpoint_id, event_type)
    )`.execute(db);
  await sql`create index deliveries_due on deliveries (next_attempt_at) where status = 'pending'`.execute(db);
  await sql`create index deliveries_unreported on deliveries (finished_at) where status in ('delivered', 'failed') and outcome_reported_at is null`.execute(db);

  await sql`
    create table delivery_attempts (
      attempt_id uuid primary key,
      delivery_id uuid not null references deliveries (id) on delete cascade,
      event_id text not null,
      event_type text not null,
      endpoint_id uuid not null,
      attempt integer not null,
      attempted_at timestamptz not null,
      status_code integer,
      duration_ms integer not null,
      response_body text,
      error text,
      outcome text not null check (outcome in ('delivered', 'failed', 'refused', 'cancelled'))
    )`.execute(db);
  await sql`create index delivery_attempts_endpoint on delivery_attempts (endpoint_id, attempted_at desc)`.execute(db);
  await sql`create index delivery_attempts_delivery on delivery_attempts (delivery_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table delivery_attempts`.execute(db);
  await sql`drop table deliveries`.execute(db);
  await inboxMigration.down?.(db);
}
