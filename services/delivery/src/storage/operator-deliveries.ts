import { sql, type Kysely } from '@preflight/db';
import type { NewEnvelope } from './deliveries.ts';
import type { DeliveryDatabase, DeliveryTrigger } from './schema.ts';

const INSERT_SLICE = 1_000;

/** A delivery an operator asked for (redeliver, recover, test): due at once. */
export interface OperatorDelivery {
  id: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  orgId: string;
  url: string;
  trigger: Exclude<DeliveryTrigger, 'event'>;
}

/** One logged attempt of the endpoint and the envelope it sent (null when no longer kept). */
export async function loggedAttempt(
  db: Kysely<DeliveryDatabase>,
  endpointId: string,
  attemptId: string,
): Promise<{ eventId: string; eventType: string; body: string | null } | undefined> {
  return db
    .selectFrom('delivery_attempts as a')
    .leftJoin('delivery_envelopes as e', (j) => j.onRef('e.event_id', '=', 'a.event_id').onRef('e.event_type', '=', 'a.event_type'))
    .select(['a.event_id as eventId', 'a.event_type as eventType', 'e.body'])
    .where('a.attempt_id', '=', attemptId)
    .where('a.endpoint_id', '=', endpointId)
    .executeTakeFirst();
}

/**
 * The events whose delivery to the endpoint failed (its last attempt used) since `since`,
 * none of whose attempts since was delivered, with no delivery of them still open, and whose
 * envelope is still kept. Test sends are not events and never count.
 */
export async function failedSince(
  db: Kysely<DeliveryDatabase>,
  endpointId: string,
  since: Date,
  lastAttempt: number,
): Promise<Array<{ eventId: string; eventType: string }>> {
  const { rows } = await sql<{ eventId: string; eventType: string }>`
    select a.event_id as "eventId", a.event_type as "eventType"
    from delivery_attempts a
    where a.endpoint_id = ${endpointId} and a.attempted_at >= ${since} and a.trigger <> 'test'
    group by a.event_id, a.event_type
    having bool_or(a.outcome in ('failed', 'refused') and a.attempt >= ${lastAttempt}) and not bool_or(a.outcome = 'delivered')
      and exists (select 1 from delivery_envelopes e where e.event_id = a.event_id and e.event_type = a.event_type)
      and not exists (select 1 from deliveries d where d.endpoint_id = ${endpointId} and d.event_id = a.event_id and d.event_type = a.event_type and d.status in ('pending', 'parked'))
    order by min(a.attempted_at)`.execute(db);
  return rows;
}

/**
 * Stores operator deliveries due at once (and the envelope a test send made up), then wakes
 * every replica's claim loop at commit.
 */
export async function insertOperatorDeliveries(
  db: Kysely<DeliveryDatabase>,
  d: { rows: readonly OperatorDelivery[]; envelope?: NewEnvelope; channel: string },
): Promise<void> {
  if (d.rows.length === 0) return;
  await db.transaction().execute(async (trx) => {
    if (d.envelope) {
      await trx.insertInto('delivery_envelopes').values({ event_id: d.envelope.eventId, event_type: d.envelope.eventType, body: d.envelope.body }).onConflict((c) => c.doNothing()).execute();
    }
    // In slices: a recovery may hold many thousands, and a statement takes 65,535 parameters.
    for (let i = 0; i < d.rows.length; i += INSERT_SLICE) {
      await trx
        .insertInto('deliveries')
        .values(d.rows.slice(i, i + INSERT_SLICE).map((r) => ({ id: r.id, event_id: r.eventId, event_type: r.eventType, endpoint_id: r.endpointId, org_id: r.orgId, url: r.url, trigger: r.trigger })))
        .execute();
    }
    await sql`select pg_notify(${d.channel}, '')`.execute(trx);
  });
}
