import { sql, type Kysely } from '@preflight/db';
import type { AttemptOutcome, DeliveryDatabase, DeliveryStatus } from './schema.ts';

export interface ClaimedDelivery {
  id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  org_id: string;
  url: string;
  envelope: string;
  attempt_count: number;
}

export interface ClaimDecision {
  /** Rows to lease and attempt now. */
  take: ClaimedDelivery[];
  /** Rows moved to a later time without using an attempt (their endpoint's breaker is open). */
  defer: Array<{ id: string; until: Date }>;
}

const leaseEnd = (leaseMs: number) => sql<Date>`now() + ${leaseMs} * interval '1 millisecond'`;

/**
 * Claims due deliveries: `select … where status = 'pending' and next_attempt_at <= now() order by
 * next_attempt_at limit N for update skip locked`, skipping endpoints this replica cannot
 * take more attempts for, so their backlog never hides other endpoints' due rows. `decide`
 * picks what to take; taken rows are leased: `next_attempt_at` and `leased_until` move to the
 * end of the lease, so no replica claims them meanwhile and, should this process die, they
 * become due again when it expires. Rows not taken are left as they were.
 */
export async function claimDue(
  db: Kysely<DeliveryDatabase>,
  opts: { limit: number; excludeEndpoints: string[]; leaseMs: number; token: string; decide: (rows: ClaimedDelivery[]) => ClaimDecision },
): Promise<ClaimedDelivery[]> {
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('deliveries')
      .select(['id', 'event_id', 'event_type', 'endpoint_id', 'org_id', 'url', 'envelope', 'attempt_count'])
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', sql<Date>`now()`)
      .$if(opts.excludeEndpoints.length > 0, (qb) => qb.where('endpoint_id', 'not in', opts.excludeEndpoints))
      .orderBy('next_attempt_at')
      .limit(opts.limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (rows.length === 0) return [];
    const { take, defer } = opts.decide(rows);
    if (take.length > 0) {
      await trx
        .updateTable('deliveries')
        .set({ next_attempt_at: leaseEnd(opts.leaseMs), leased_until: leaseEnd(opts.leaseMs), lease_token: opts.token })
        .where('id', 'in', take.map((r) => r.id))
        .execute();
    }
    for (const d of defer) await trx.updateTable('deliveries').set({ next_attempt_at: d.until }).where('id', '=', d.id).execute();
    return take;
  });
}

/**
 * In how many ms the next pending delivery (outside the given endpoints) is due, by the
 * database's clock (≤ 0: due now); undefined when none is pending.
 */
export async function msUntilNextDue(db: Kysely<DeliveryDatabase>, excludeEndpoints: string[]): Promise<number | undefined> {
  const row = await db
    .selectFrom('deliveries')
    .select(sql<number | null>`extract(epoch from (min(next_attempt_at) - now())) * 1000`.as('ms'))
    .where('status', '=', 'pending')
    .$if(excludeEndpoints.length > 0, (qb) => qb.where('endpoint_id', 'not in', excludeEndpoints))
    .executeTakeFirst();
  return row?.ms === null || row?.ms === undefined ? undefined : Number(row.ms);
}

/** Gives a leased delivery back, due at `until`, without using an attempt. */
export async function releaseLease(db: Kysely<DeliveryDatabase>, id: string, token: string, until: Date): Promise<void> {
  await db
    .updateTable('deliveries')
    .set({ next_attempt_at: until, leased_until: null, lease_token: null })
    .where('id', '=', id)
    .where('lease_token', '=', token)
    .execute();
}

export interface AttemptRecord {
  attemptId: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  attempt: number;
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  responseBody: string | null;
  error: string | null;
  outcome: AttemptOutcome;
}

/**
 * Records an attempt and moves its delivery on (retry `retryInMs` from now, or final), releasing
 * the lease, in one transaction. Returns false when the lease was lost meanwhile (it expired
 * and another worker took the row): the attempt is still logged, the delivery left alone.
 */
export async function recordAttempt(
  db: Kysely<DeliveryDatabase>,
  token: string,
  attempt: AttemptRecord,
  next: { status: DeliveryStatus; retryInMs?: number },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await trx
      .insertInto('delivery_attempts')
      .values({
        attempt_id: attempt.attemptId,
        delivery_id: attempt.deliveryId,
        event_id: attempt.eventId,
        event_type: attempt.eventType,
        endpoint_id: attempt.endpointId,
        attempt: attempt.attempt,
        attempted_at: attempt.attemptedAt,
        status_code: attempt.statusCode,
        duration_ms: attempt.durationMs,
        response_body: attempt.responseBody,
        error: attempt.error,
        outcome: attempt.outcome,
      })
      .execute();
    const final = next.status !== 'pending';
    const updated = await trx
      .updateTable('deliveries')
      .set({
        status: next.status,
        attempt_count: attempt.attempt,
        // By the database's clock, like the claim's `next_attempt_at <= now()`.
        next_attempt_at: sql<Date>`now() + ${next.retryInMs ?? 0} * interval '1 millisecond'`,
        leased_until: null,
        lease_token: null,
        ...(final ? { finished_at: sql<Date>`now()` } : {}),
      })
      .where('id', '=', attempt.deliveryId)
      .where('lease_token', '=', token)
      .returning('id')
      .execute();
    return updated.length > 0;
  });
}

/**
 * Reports the oldest final, unreported delivery's outcome through `report` while holding its
 * row lock (so one replica reports it), then marks it reported. False when none is waiting.
 */
export async function reportNextOutcome(
  db: Kysely<DeliveryDatabase>,
  report: (row: { id: string; endpoint_id: string; event_type: string; status: DeliveryStatus }) => Promise<void>,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('deliveries')
      .select(['id', 'endpoint_id', 'event_type', 'status'])
      .where('status', 'in', ['delivered', 'failed'])
      .where('outcome_reported_at', 'is', null)
      .orderBy('finished_at')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!row) return false;
    await report(row);
    await trx.updateTable('deliveries').set({ outcome_reported_at: sql<Date>`now()` }).where('id', '=', row.id).execute();
    return true;
  });
}

/** The delivery log of one endpoint: attempts, newest first. */
export async function listAttempts(db: Kysely<DeliveryDatabase>, endpointId: string, limit: number) {
  return db
    .selectFrom('delivery_attempts')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('attempted_at', 'desc')
    .orderBy('attempt', 'desc')
    .limit(limit)
    .execute();
}

/** Pending deliveries, and those due more than `lateMs` ago (not attempted yet). */
export async function backlog(db: Kysely<DeliveryDatabase>, lateMs: number): Promise<{ pending: number; late: number }> {
  const row = await db
    .selectFrom('deliveries')
    .select([
      sql<number>`count(*)`.as('pending'),
      sql<number>`count(*) filter (where next_attempt_at < now() - ${lateMs} * interval '1 millisecond')`.as('late'),
    ])
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return { pending: Number(row.pending), late: Number(row.late) };
}
