import { sql, type Kysely } from '@preflight/db';
import { ATTEMPT_COLUMNS, attemptRows } from './attempt-rows.ts';
import { leaseEnd, type ClaimedDelivery } from './deliveries.ts';
import type { DeliveryDatabase } from './schema.ts';

// Deliveries that wait for an endpoint which stopped answering or was disabled: failed unsent
// once overdue, woken when it answers, cancelled when it is disabled.

/**
 * Leases the deliveries whose attempt could not start within `overdueMs` of becoming due:
 * pending ones of the given endpoints (this replica holds those at their bound, so no claim of
 * it takes them, and another replica with free slots would have), and parked ones of any
 * endpoint (their endpoint stopped answering). Their attempts are to be recorded as failed.
 */
export async function claimOverdue(
  db: Kysely<DeliveryDatabase>,
  opts: { endpoints: readonly string[]; overdueMs: number; limit: number; leaseMs: number; token: string },
): Promise<ClaimedDelivery[]> {
  const cutoff = sql`now() - ${opts.overdueMs} * interval '1 millisecond'`;
  const result = await sql<ClaimedDelivery>`
    with waiting as (
      select id, next_attempt_at from deliveries
      where status = 'pending' and endpoint_id = any(${[...opts.endpoints]}::uuid[]) and next_attempt_at <= ${cutoff}
      order by next_attempt_at
      limit ${opts.limit}
      for update skip locked
    ), parked as (
      select id, next_attempt_at from deliveries
      where status = 'parked' and next_attempt_at <= ${cutoff}
      order by next_attempt_at
      limit ${opts.limit}
      for update skip locked
    ), overdue as (
      select * from waiting union all select * from parked
    )
    update deliveries d
    set status = 'pending', next_attempt_at = ${leaseEnd(opts.leaseMs)}, leased_until = ${leaseEnd(opts.leaseMs)}, lease_token = ${opts.token}::uuid
    from overdue
    where d.id = overdue.id
    returning d.id, d.event_id, d.event_type, d.endpoint_id, d.org_id, d.url, d.attempt_count, d.trigger, overdue.next_attempt_at as due_at, '' as body`.execute(db);
  return result.rows;
}

/**
 * Cancels the endpoint's deliveries waiting in the table (pending or parked, not leased: an
 * attempt under way cancels itself when it looks the endpoint up), each logged as a cancelled
 * attempt, in one statement: the endpoint was disabled, and none of them is to be attempted.
 */
export async function cancelWaiting(db: Kysely<DeliveryDatabase>, endpointId: string, newAttemptId: () => string, limit = 5_000): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('deliveries')
      .select(['id', 'event_id', 'event_type', 'attempt_count', 'trigger'])
      .where('endpoint_id', '=', endpointId)
      .where('status', 'in', ['pending', 'parked'])
      .where('lease_token', 'is', null)
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (rows.length === 0) return 0;
    const now = new Date();
    const attempts = rows.map((r) => ({
      attemptId: r.attempt_count === 0 ? r.id : newAttemptId(),
      deliveryId: r.id,
      eventId: r.event_id,
      eventType: r.event_type,
      endpointId,
      attempt: r.attempt_count + 1,
      attemptedAt: now,
      statusCode: null,
      durationMs: 0,
      responseBody: null,
      error: 'endpoint disabled; delivery cancelled',
      outcome: 'cancelled' as const,
      trigger: r.trigger,
    }));
    await sql`
      with gone as (delete from deliveries where id = any(${rows.map((r) => r.id)}::uuid[]))
      insert into delivery_attempts ${ATTEMPT_COLUMNS} ${attemptRows(attempts)}`.execute(trx);
    return rows.length;
  });
}

/** The endpoint answers again: its parked deliveries are pending (and due when they were) for any replica. */
export async function unpark(db: Kysely<DeliveryDatabase>, endpointId: string, channel: string): Promise<void> {
  await sql`
    with woken as (update deliveries set status = 'pending' where status = 'parked' and endpoint_id = ${endpointId} returning 1)
    select pg_notify(${channel}, '') from (select 1) one where exists (select 1 from woken)`.execute(db);
}
