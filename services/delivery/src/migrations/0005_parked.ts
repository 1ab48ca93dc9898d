import { sql, type Kysely } from '@preflight/db';

/**
 * `parked`: a delivery waiting for an endpoint that stopped answering (stalled). It keeps its
 * due time, but stays out of the due index every claim walks, so a hanging endpoint's backlog
 * does not slow the claims that serve everyone else; it is made pending again when the
 * endpoint answers, or failed unsent once an attempt's time has passed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table deliveries drop constraint if exists deliveries_status_check`.execute(db);
  await sql`alter table deliveries add constraint deliveries_status_check check (status in ('pending', 'parked', 'delivered', 'failed', 'cancelled'))`.execute(db);
  await sql`create index deliveries_parked on deliveries (next_attempt_at) where status = 'parked'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index deliveries_parked`.execute(db);
  await sql`update deliveries set status = 'pending' where status = 'parked'`.execute(db);
  await sql`alter table deliveries drop constraint deliveries_status_check`.execute(db);
  await sql`alter table deliveries add constraint deliveries_status_check check (status in ('pending', 'delivered', 'failed', 'cancelled'))`.execute(db);
}
