import { isUniqueViolation, sql, type Kysely } from '@preflight/db';
import { ATTEMPT_COLUMNS, attemptRows, bareArray, type AttemptRecord } from './attempt-rows.ts';
import type { DeliveryDatabase, DeliveryStatus, DeliveryTrigger } from './schema.ts';

export type { AttemptRecord } from './attempt-rows.ts';

export interface ClaimedDelivery {
  id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  org_id: string;
  url: string;
  /** The exact body bytes to send (its event's envelope, `delivery_envelopes`). */
  body: string;
  /** `body` as UTF-8 bytes, when the fan-out made them once for all the envelope's deliveries. */
  bodyBytes?: Buffer;
  attempt_count: number;
  trigger: DeliveryTrigger;
  /** When its next attempt became due (before the lease); an attempt not started within its timeout of this fails. */
  due_at: Date;
}

export const leaseEnd = (leaseMs: number) => sql<Date>`now() + ${leaseMs} * interval '1 millisecond'`;

/**
 * Claims due deliveries in one statement (one round trip, one commit):
 * `select … where status = 'pending' and next_attempt_at <= now() order by next_attempt_at
 * limit N for update skip locked`, leaving out endpoints this replica cannot take more for
 * (so their backlog never hides other endpoints' due rows), then keeps per endpoint at most
 * its `room` (`defaultRoom` for endpoints not listed), oldest first. Kept rows are leased:
 * `next_attempt_at` and `leased_until` move to the end of the lease, so no replica claims them
 * meanwhile and, should this process die, they become due again when it expires. Rows not
 * kept are left as they were. `fetched` = rows the select found (≤ limit).
 */
export async function claimDue(
  db: Kysely<DeliveryDatabase>,
  opts: { limit: number; excludeEndpoints: string[]; room: ReadonlyMap<string, number>; defaultRoom: number; leaseMs: number; token: string },
): Promise<{ rows: ClaimedDelivery[]; fetched: number }> {
  const result = await sql<ClaimedDelivery & { fetched: number }>`
    with candidates as (
      select id, endpoint_id, next_attempt_at
      from deliveries
      where status = 'pending'
        and next_attempt_at <= now()
        and not (endpoint_id = any(${opts.excludeEndpoints}::uuid[]))
      order by next_attempt_at
      limit ${opts.limit}
      for update skip locked
    ),
    kept as (
      select c.id, c.next_attempt_at
      from (select id, endpoint_id, next_attempt_at, row_number() over (partition by endpoint_id order by next_attempt_at, id) as n from candidates) c
      left join unnest(${[...opts.room.keys()]}::uuid[], ${[...opts.room.values()]}::integer[]) as room (endpoint_id, n) on room.endpoint_id = c.endpoint_id
      where c.n <= coalesce(room.n, ${opts.defaultRoom}::integer)
    )
    update deliveries d
    set next_attempt_at = ${leaseEnd(opts.leaseMs)}, leased_until = ${leaseEnd(opts.leaseMs)}, lease_token = ${opts.token}::uuid
    from kept
    where d.id = kept.id
    returning d.id, d.event_id, d.event_type, d.endpoint_id, d.org_id, d.url, d.attempt_count, d.trigger, kept.next_attempt_at as due_at,
      (select e.body from delivery_envelopes e where e.event_id = d.event_id and e.event_type = d.event_type) as body,
      (select count(*) from candidates)::integer as fetched`.execute(db);
  return {
    rows: result.rows.map(({ fetched: _fetched, ...row }) => row),
    fetched: result.rows[0]?.fetched ?? 0,
  };
}

export interface NewEnvelope {
  eventId: string;
  eventType: string;
  /** The envelope's exact body bytes (UTF-8 JSON text). */
  body: string;
}

export interface NewDelivery {
  id: string;
  eventId: string;
  eventType: string;
  orgId: string;
  endpointId: string;
  url: string;
  /** Taken by this replica's scheduler as it is inserted: the lease token it holds the row under (undefined: due at once, and `channel` is notified). */
  leaseToken: string | undefined;
  /** Stored `parked` (its endpoint is stalled here): out of the due index, and no NOTIFY. */
  parked?: boolean;
}

/** An attempt the fan-out's transaction records (it ended before the transaction), and the URL its delivery goes to. */
export interface WrittenAttempt {
  completion: AttemptCompletion;
  url: string;
}

/**
 * Stores a fan-out's work in one statement: envelopes (once per event and type, kept for
 * redeliveries as long as the log), deliveries, and the attempts that ended before the
 * transaction. A leased row is inserted as a claim would leave it (due at the end of the
 * lease, `lease_token`), so the replica that fanned it out holds it in its own scheduler
 * (started, or handed over at commit) with no claim statement and no second row version;
 * should that replica die first, the lease expires and any replica claims it. Rows there was
 * no room for are due at once, for the claim loop, and `channel` is NOTIFYed (at commit) for
 * them. An attempt written here that leaves its delivery done (final and reported,
 * or cancelled) stores no delivery at all; one that leaves a retry, or an outcome still to
 * report, stores its delivery as the record of a claimed one would have left it.
 */
export async function storeFanout(
  db: Kysely<DeliveryDatabase>,
  d: { envelopes: readonly NewEnvelope[]; rows: readonly NewDelivery[]; written?: readonly WrittenAttempt[]; leaseMs: number; channel: string },
): Promise<void> {
  const written = d.written ?? [];
  const moved = written.filter((w) => !nothingLeft(w.completion));
  const rows = [
    ...d.rows.map((r) => ({ ...r, status: (r.parked ? 'parked' : 'pending') as DeliveryStatus, attemptCount: 0, dueInMs: null as number | null, wake: r.leaseToken === undefined && !r.parked })),
    ...moved.map(({ completion: c, url }) => ({
      id: c.attempt.deliveryId,
      eventId: c.attempt.eventId,
      eventType: c.attempt.eventType,
      orgId: c.orgId,
      endpointId: c.attempt.endpointId,
      url,
      leaseToken: undefined,
      status: c.next.status,
      attemptCount: c.attempt.attempt,
      dueInMs: c.next.retryInMs ?? 0,
      wake: false,
    })),
  ];
  if (rows.length === 0 && written.length === 0) return;
  const col = <K extends keyof (typeof rows)[number]>(k: K) => rows.map((r) => r[k]);
  await sql`
    with envelope as (
      insert into delivery_envelopes (event_id, event_type, body)
      select * from unnest(${d.envelopes.map((e) => e.eventId)}::text[], ${bareArray(d.envelopes, (e) => e.eventType)}::text[], ${d.envelopes.map((e) => e.body)}::text[])
      on conflict do nothing
    ),
    logged as (
      insert into delivery_attempts ${ATTEMPT_COLUMNS}
      ${attemptRows(written.map((w) => w.completion.attempt))}
    ),
    inserted as (
      insert into deliveries (id, event_id, event_type, endpoint_id, org_id, url, status, attempt_count, next_attempt_at, leased_until, lease_token, finished_at)
      select r.id, r.event_id, r.event_type, r.endpoint_id, r.org_id, r.url, r.status, r.attempt_count,
        case when r.lease_token is not null then ${leaseEnd(d.leaseMs)}
          when r.due_in_ms is not null then now() + r.due_in_ms * interval '1 millisecond'
          else now() end,
        case when r.lease_token is not null then ${leaseEnd(d.leaseMs)} end,
        r.lease_token,
        case when r.status not in ('pending', 'parked') then now() end
      from unnest(${bareArray(rows, (r) => r.id)}::uuid[], ${col('eventId')}::text[], ${bareArray(rows, (r) => r.eventType)}::text[], ${bareArray(rows, (r) => r.endpointId)}::uuid[],
        ${bareArray(rows, (r) => r.orgId)}::uuid[], ${col('url')}::text[], ${bareArray(rows, (r) => r.status)}::text[], ${bareArray(rows, (r) => r.attemptCount)}::integer[],
        ${bareArray(rows, (r) => r.dueInMs)}::integer[], ${bareArray(rows, (r) => r.leaseToken)}::uuid[])
        as r (id, event_id, event_type, endpoint_id, org_id, url, status, attempt_count, due_in_ms, lease_token)
    )
    select pg_notify(${d.channel}, '') from (select 1) one
    where ${rows.some((r) => r.wake)}`.execute(db);
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

export interface AttemptCompletion {
  /** The lease the attempt was made under. */
  token: string;
  /** The delivery's organisation (its outcome report names it). */
  orgId: string;
  attempt: AttemptRecord;
  next: { status: DeliveryStatus; retryInMs?: number };
  /** A final outcome already reported to the webhook service (not left to the outcome reporter). */
  reported?: boolean;
}

/** Final, with no outcome to report (cancelled) or its outcome reported: the row can go. */
const nothingLeft = (c: AttemptCompletion): boolean => c.next.status === 'cancelled' || (c.next.status !== 'pending' && c.next.status !== 'parked' && c.reported === true);

/**
 * Records attempts and moves their deliveries on (retry `retryInMs` from now, final with an
 * outcome still to report, or deleted when nothing is left to do), releasing their leases,
 * all in one statement: one commit (one WAL flush) for many attempts
 * instead of one each. Answers, per completion, false when its lease was lost meanwhile (it
 * expired and another worker took the row): that attempt is still logged, its delivery left
 * alone.
 */
export async function recordAttempts(db: Kysely<DeliveryDatabase>, completions: readonly AttemptCompletion[]): Promise<boolean[]> {
  try {
    return await recordAttemptsOnce(db, completions, false);
  } catch (err) {
    // A delivery's first attempt carries its id; should a lost lease have let two replicas make
    // that attempt, the second record must not fail its whole batch (rare: paid only then).
    if (!isUniqueViolation(err)) throw err;
    return recordAttemptsOnce(db, completions, true);
  }
}

async function recordAttemptsOnce(db: Kysely<DeliveryDatabase>, completions: readonly AttemptCompletion[], tolerant: boolean): Promise<boolean[]> {
  if (completions.length === 0) return [];
  const a = completions.map((c) => c.attempt);
  const attempts = attemptRows(a);
  const moves = sql`select * from unnest(
    ${bareArray(a, (x) => x.deliveryId)}::uuid[], ${bareArray(completions, (c) => c.token)}::uuid[], ${bareArray(completions, (c) => c.next.status)}::text[],
    ${bareArray(a, (x) => x.attempt)}::integer[], ${bareArray(completions, (c) => c.next.retryInMs ?? 0)}::integer[], ${bareArray(completions, nothingLeft)}::boolean[])`;
  // One statement (data-modifying CTEs), so one round trip and one commit for the batch; the
  // inserts, deletes and updates still stand or fall together. `now()` is the database's
  // clock, like the claim's `next_attempt_at <= now()`. A delivery with nothing left to do
  // (final, and its outcome reported or nothing to report) is deleted: its history is its
  // attempts, and a delete writes no new row version and no index entry, where the update
  // wrote both. The rest (a retry, an outcome still to report) move on.
  const updated = await sql<{ id: string; lease_token: string }>`
    with logged as (
      insert into delivery_attempts ${ATTEMPT_COLUMNS}
      ${attempts}
      ${tolerant ? sql`on conflict do nothing` : sql``}
    ), moves (id, token, status, attempt, retry_ms, done) as (
      ${moves}
    ), finished as (
      delete from deliveries d using moves v
      where d.id = v.id and d.lease_token = v.token and v.done
      returning d.id, v.token as lease_token
    ), moved as (
      update deliveries d
      set status = v.status,
          attempt_count = v.attempt,
          next_attempt_at = now() + v.retry_ms * interval '1 millisecond',
          leased_until = null,
          lease_token = null,
          finished_at = case when v.status in ('pending', 'parked') then d.finished_at else now() end
      from moves v
      where d.id = v.id and d.lease_token = v.token and not v.done
      returning d.id, v.token as lease_token
    )
    select id, lease_token from finished
    union all
    select id, lease_token from moved`.execute(db);
  const held = new Set(updated.rows.map((r) => `${r.id} ${r.lease_token}`));
  return completions.map((c) => held.has(`${c.attempt.deliveryId} ${c.token}`));
}

export interface UnreportedOutcome {
  id: string;
  endpoint_id: string;
  org_id: string;
  event_type: string;
  status: DeliveryStatus;
}

/**
 * Reports the oldest final, unreported deliveries' outcomes (at most `limit`, oldest first)
 * through `report` while holding their row locks (so one replica reports each), then deletes
 * them (nothing is left to do), in one transaction. Answers how many were reported (0: none was waiting).
 */
export async function reportOutcomes(db: Kysely<DeliveryDatabase>, limit: number, report: (rows: UnreportedOutcome[]) => Promise<void>): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('deliveries')
      .select(['id', 'endpoint_id', 'org_id', 'event_type', 'status'])
      .where('status', 'in', ['delivered', 'failed'])
      .where('outcome_reported_at', 'is', null)
      .orderBy('finished_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (rows.length === 0) return 0;
    await report(rows);
    // Reported: nothing is left to do for them (their history is their attempts).
    await trx
      .deleteFrom('deliveries')
      .where('id', 'in', rows.map((r) => r.id))
      .execute();
    return rows.length;
  });
}

/** One attempt of the delivery log. */
export type LoggedAttempt = Awaited<ReturnType<typeof listAttempts>>[number];

/** The delivery log of one endpoint: attempts, newest first. */
export async function listAttempts(db: Kysely<DeliveryDatabase>, endpointId: string, limit: number) {
  return db
    .selectFrom('delivery_attempts')
    .select(['attempt_id as attemptId', 'event_id as eventId', 'event_type as eventType', 'attempt', 'attempted_at as attemptedAt', 'status_code as statusCode', 'duration_ms as durationMs', 'response_body as responseBody', 'error', 'outcome', 'trigger'])
    .where('endpoint_id', '=', endpointId)
    .orderBy('attempted_at', 'desc')
    .orderBy('attempt', 'desc')
    .limit(limit)
    .execute();
}

/** Pending (and parked) deliveries, and the pending ones due more than `lateMs` ago (not attempted yet). */
export async function backlog(db: Kysely<DeliveryDatabase>, lateMs: number): Promise<{ pending: number; late: number }> {
  const row = await db
    .selectFrom('deliveries')
    .select([
      sql<number>`count(*)`.as('pending'),
      // A parked delivery waits for its stalled endpoint, not for us.
      sql<number>`count(*) filter (where status = 'pending' and next_attempt_at < now() - ${lateMs} * interval '1 millisecond')`.as('late'),
    ])
    .where('status', 'in', ['pending', 'parked'])
    .executeTakeFirstOrThrow();
  return { pending: Number(row.pending), late: Number(row.late) };
}
