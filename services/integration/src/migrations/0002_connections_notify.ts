import { sql, type Kysely } from '@preflight/db';

/**
 * Signals every change to which connections are live on `<schema>_connections`
 * (consumer/connected-orgs.ts), from a trigger so every writer signals, whatever its version.
 * Updates of other columns (health, credentials) are frequent and change nothing it caches.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function connections_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify(tg_table_schema || '_connections', '');
      return null;
    end $$
  `.execute(db);
  await sql`create trigger connections_changed after insert or delete or update of org_id, paused, deleted_at on connections for each statement execute function connections_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger connections_changed on connections`.execute(db);
  await sql`drop function connections_changed()`.execute(db);
}
