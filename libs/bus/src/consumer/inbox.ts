import { sql, type Migration, type Transaction } from 'kysely';

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

/**
 * Records events in the inbox inside `trx` and answers, per id in order, whether it is new
 * (true) or was processed before. An id twice in one call (a redelivery that caught up with
 * the first copy) is new at most once: its first occurrence, in stream order.
 */
export async function recordInInbox<DB>(trx: Transaction<DB>, consumer: string, ids: readonly string[]): Promise<boolean[]> {
  if (ids.length === 1) {
    const inserted = await sql`
      insert into inbox (consumer, event_id) values (${consumer}, ${ids[0]})
      on conflict do nothing returning event_id`.execute(trx);
    return [inserted.rows.length > 0];
  }
  const inserted = await sql<{ event_id: string }>`
    insert into inbox (consumer, event_id)
    select ${consumer}, id from unnest(${ids}::text[]) as id
    on conflict do nothing returning event_id`.execute(trx);
  const isNew = new Set(inserted.rows.map((r) => r.event_id));
  return ids.map((id) => isNew.delete(id));
}
