import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable, type Transaction } from '@preflight/db';
import type { IntegrationDatabase, JobAction, JobsTable } from './schema.ts';

export type JobRow = Selectable<JobsTable>;

/** Channel the insert of a due job notifies, so an idle worker starts at once. */
export const JOBS_CHANNEL = 'integration_jobs';

export interface NewJob {
  connectionId: string;
  issueId: string | null;
  action: JobAction;
  dedupeKey: string;
  payload: Record<string, unknown>;
}

/**
 * Queues jobs inside the caller's transaction (the consumer's, with its inbox row; the inbound
 * route's). A job already queued for the same cause is left alone. Notifies after commit.
 */
export async function enqueueJobs(trx: Transaction<IntegrationDatabase> | Kysely<IntegrationDatabase>, jobs: NewJob[]): Promise<number> {
  if (jobs.length === 0) return 0;
  const inserted = await trx
    .insertInto('jobs')
    .values(jobs.map((j) => ({ id: randomUUID(), connection_id: j.connectionId, issue_id: j.issueId, action: j.action, dedupe_key: j.dedupeKey, payload: JSON.stringify(j.payload) })))
    .onConflict((oc) => oc.columns(['connection_id', 'dedupe_key']).doNothing())
    .returning('id')
    .execute();
  if (inserted.length > 0) await sql`select pg_notify(${JOBS_CHANNEL}, '')`.execute(trx);
  return inserted.length;
}

/**
 * Claims due jobs: pending ones whose time has come and running ones whose lease ran out (a
 * replica died mid-call), of live connections that are not paused or waiting for credentials.
 * `slots` says how many more this replica may start for the connections it limits (its
 * concurrency cap minus the calls in flight, 1 while half-open); every other connection gets
 * `perConnection`. Connections with no slot at all are left out of the candidates, so their
 * backlog cannot fill them, and one connection's backlog never takes the whole claim. One
 * statement, so a claim costs one round trip: claims run as often as calls finish. Claimed
 * jobs are `running` with a lease and one more attempt counted; each names the version of its
 * connection's row, so the worker reads a connection again only when it changed.
 */
/** A claimed job, with the version (`updated_at`) of its connection's row at the claim. */
export type ClaimedJob = JobRow & { connection_version: Date };

export async function claimJobs(
  db: Kysely<IntegrationDatabase>,
  opts: { limit: number; leaseMs: number; perConnection: number; slots: ReadonlyMap<string, number> },
): Promise<ClaimedJob[]> {
  const limited = [...opts.slots.keys()];
  const counts = limited.map((id) => Math.max(0, opts.slots.get(id)!));
  const exclude = limited.filter((_, i) => counts[i] === 0);
  const { rows } = await sql<ClaimedJob>`
    with candidates as (
      select j.id, j.connection_id, j.due_at
        from jobs j
        join connections c on c.id = j.connection_id
       where ((j.state = 'pending' and j.due_at <= now()) or (j.state = 'running' and j.lease_until < now()))
         and c.deleted_at is null and not c.paused and c.status <> 'needs-attention'
         and j.connection_id <> all(${sql.val(exclude)}::uuid[])
       order by j.due_at
       limit ${opts.limit * 4}
         for update of j skip locked
    ), chosen as (
      select id, connection_id
        from (select k.id, k.connection_id, k.due_at, row_number() over (partition by k.connection_id order by k.due_at, k.id) as nth,
                     coalesce(s.slots, ${opts.perConnection}::int) as slots
                from candidates k
                left join unnest(${sql.val(limited)}::uuid[], ${sql.val(counts)}::int[]) as s(connection_id, slots) using (connection_id)) ranked
       where nth <= slots
       order by due_at
       limit ${opts.limit}
    )
    update jobs j
       set state = 'running', attempts = j.attempts + 1, lease_until = now() + ${opts.leaseMs}::int * interval '1 millisecond'
      from chosen
      join connections c on c.id = chosen.connection_id
     where j.id = chosen.id
    returning j.*, c.updated_at as connection_version`.execute(db);
  return rows;
}

/** A try's end: the job is finished (`done`/`failed`) or waits `delayMs` to run again. */
export type JobSettlement =
  | { jobId: string; state: 'done' | 'failed'; error: string | null }
  | { jobId: string; state: 'pending'; delayMs: number; error: string | null; countAttempt: boolean };

/**
 * Settles the tries of many jobs in one statement (inside the results' transaction). Only jobs
 * still `running` change: a job whose lease ran out and that another try took over is left to it.
 */
export async function settleJobs(trx: Transaction<IntegrationDatabase>, settlements: JobSettlement[]): Promise<void> {
  if (settlements.length === 0) return;
  const rows = settlements.map((s) =>
    s.state === 'pending'
      ? sql`(${s.jobId}::uuid, 'pending', ${Math.max(0, Math.round(s.delayMs))}::int, ${s.error}::text, ${s.countAttempt ? 0 : 1}::int)`
      : sql`(${s.jobId}::uuid, ${s.state}, 0, ${s.error}::text, 0)`,
  );
  await sql`
    update jobs j set
      state = v.state,
      finished_at = case when v.state = 'pending' then null else now() end,
      due_at = case when v.state = 'pending' then now() + v.delay_ms * interval '1 millisecond' else j.due_at end,
      lease_until = null,
      last_error = v.error,
      attempts = greatest(j.attempts - v.uncount, 0)
    from (values ${sql.join(rows)}) as v(id, state, delay_ms, error, uncount)
    where j.id = v.id and j.state = 'running'`.execute(trx);
}

/** Whether a create for this issue is still to run on the connection (a status sync waits for it). */
export async function createPending(db: Kysely<IntegrationDatabase>, connectionId: string, issueId: string): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select('id')
    .where('connection_id', '=', connectionId)
    .where('issue_id', '=', issueId)
    .where('action', '=', 'create')
    .where('state', 'in', ['pending', 'running'])
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether a create or status sync to this tracker issue is running now (its result not recorded yet). */
export async function outboundRunning(db: Kysely<IntegrationDatabase>, connectionId: string, issueId: string): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select('id')
    .where('connection_id', '=', connectionId)
    .where('issue_id', '=', issueId)
    .where('action', 'in', ['create', 'sync-status'])
    .where('state', '=', 'running')
    .where('lease_until', '>', sql<Date>`now()`)
    .executeTakeFirst();
  return row !== undefined;
}

/** The connection's given-up jobs, pending again from their first try; how many. */
export async function requeueFailedJobs(db: Kysely<IntegrationDatabase>, connectionId: string): Promise<number> {
  const result = await db
    .updateTable('jobs')
    .set({ state: 'pending', attempts: 0, due_at: sql<Date>`now()`, last_error: null, finished_at: null, lease_until: null })
    .where('connection_id', '=', connectionId)
    .where('state', '=', 'failed')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Finished jobs older than the retention go (the activity log keeps what happened). */
export async function pruneFinishedJobs(db: Kysely<IntegrationDatabase>, olderThanDays: number): Promise<number> {
  const result = await db.deleteFrom('jobs').where('finished_at', '<', sql<Date>`now() - ${`${olderThanDays} days`}::interval`).executeTakeFirst();
  return Number(result.numDeletedRows);
}
