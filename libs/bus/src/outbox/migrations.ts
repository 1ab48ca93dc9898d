import { sql, type Migration } from 'kysely';

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
