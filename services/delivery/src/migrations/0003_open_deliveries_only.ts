import { sql, type Kysely } from '@preflight/db';

/**
 * `deliveries` holds only deliveries with something left to do: an attempt to make, or a
 * final outcome to report to the webhook service. A delivery with nothing left is deleted
 * when its last attempt is recorded (or its outcome reported); its history is its attempts in
 * `delivery_attempts`, which the delivery log reads. Before, it was updated to its final
 * state, which wrote a new row version and a primary-key entry per delivery, and the table
 * grew by every delivery ever made. This deletes the finished rows of earlier versions (their
 * attempts stay; `down` cannot bring them back).
 *
 * So attempts no longer reference their delivery by foreign key (it cascaded their deletion,
 * and checking it locked the delivery's row at every attempt's insert), and the index on
 * `delivery_attempts (delivery_id)`, which served only that key, goes: nothing looks attempts
 * up by delivery (the log is read per endpoint, `delivery_attempts_endpoint`), and every
 * attempt paid an entry in it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`delete from deliveries where status = 'cancelled' or (status in ('delivered', 'failed') and outcome_reported_at is not null)`.execute(db);
  await sql`alter table delivery_attempts drop constraint if exists delivery_attempts_delivery_id_fkey`.execute(db);
  await sql`drop index if exists delivery_attempts_delivery`.execute(db);
}

/**
 * The key comes back `not valid`: enforced for new attempts, not checked over the attempts of
 * deliveries deleted meanwhile (the log keeps them). Deleted deliveries do not come back.
 */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`create index delivery_attempts_delivery on delivery_attempts (delivery_id)`.execute(db);
  await sql`alter table delivery_attempts add constraint delivery_attempts_delivery_id_fkey foreign key (delivery_id) references deliveries (id) on delete cascade not valid`.execute(db);
}
