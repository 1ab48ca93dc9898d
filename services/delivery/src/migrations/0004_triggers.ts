import { sql, type Kysely } from '@preflight/db';

/**
 * What made a delivery: a domain `event`, or an operator's `redeliver`, `recover` or `test`
 * (admin-api-v1.md). The log shows it per attempt; a `test` delivery's outcome is never
 * reported. A constant default adds the column without rewriting either table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['deliveries', 'delivery_attempts']) {
    await sql`alter table ${sql.table(table)} add column trigger text not null default 'event'
      check (trigger in ('event', 'redeliver', 'recover', 'test'))`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table delivery_attempts drop column trigger`.execute(db);
  await sql`alter table deliveries drop column trigger`.execute(db);
}
