import { sql, type Kysely } from '@preflight/db';
import type { DeliveryDatabase } from './schema.ts';

/**
 * The smallest UUIDv7 of a millisecond: every v7 id made before `ms` sorts below it (its first
 * 48 bits are the time, and uuid order is byte order). Attempt ids are v7 (domain/ids.ts), so
 * their primary key finds the old ones without an index on `attempted_at`, which every attempt
 * would pay for.
 */
export function v7Floor(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

/** Rows a delete removed (pg's command tag). */
const removed = (result: { numAffectedRows?: bigint }) => Number(result.numAffectedRows ?? 0n);

/**
 * Deletes up to `limit` attempts made before `cutoff`, oldest first, and answers how many. The
 * key range (`v7Floor`) keeps the search on the primary key; `attempted_at` decides, so an
 * attempt is never deleted before its time whatever its id. Rows another replica's sweep holds
 * are skipped, not waited for. The rows found are deleted by their `ctid` (locked, so it
 * cannot move meanwhile): a join back on the key made Postgres hash the whole table per batch.
 */
export async function deleteAttemptsBefore(db: Kysely<DeliveryDatabase>, cutoff: Date, limit: number): Promise<number> {
  return removed(
    await sql`
      delete from delivery_attempts where ctid = any(array(
        select ctid from delivery_attempts
        where attempt_id < ${v7Floor(cutoff.getTime())}::uuid and attempted_at < ${cutoff}
        order by attempt_id
        limit ${limit}
        for update skip locked))`.execute(db),
  );
}

/**
 * Deletes up to `limit` envelopes stored before `cutoff` that no open delivery sends any more,
 * and answers how many. An envelope is stored only for an event with deliveries left to do
 * (retries), and read only by their attempts; the log does not show bodies.
 */
export async function deleteEnvelopesBefore(db: Kysely<DeliveryDatabase>, cutoff: Date, limit: number): Promise<number> {
  return removed(
    await sql`
      delete from delivery_envelopes where ctid = any(array(
        select e.ctid from delivery_envelopes e
        where e.created_at < ${cutoff}
          and not exists (select 1 from deliveries d where d.event_id = e.event_id and d.event_type = e.event_type)
        limit ${limit}
        for update of e skip locked))`.execute(db),
  );
}
