import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable, type Transaction } from '@preflight/db';
import type { Statement } from './statement.ts';
import type { Camel, IntegrationDatabase, JobAction, JobsTable } from './schema.ts';

export type JobRow = Camel<Selectable<JobsTable>>;

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
 * route's). A job already queued for the same cause is left alone. Notifies after commit, with
 * `origin` (the queuing replica's id, job-worker.ts) as the payload: that replica claims at
 * once, the others only a moment later, for what it could not take.
 */
export async function enqueueJobs(trx: Transaction<IntegrationDatabase> | Kysely<IntegrationDatabase>, jobs: NewJob[], origin = ''): Promise<number> {
  if (jobs.length === 0) return 0;
  const rows = jobs.map((j) => sql`(${randomUUID()}::uuid, ${j.connectionId}::uuid, ${j.issueId}::uuid, ${j.action}, ${j.dedupeKey}, ${JSON.stringify(j.payload)}::jsonb)`);
  // The insert and its NOTIFY in one round trip (no notification when every job was there already).
  const { rows: counted } = await sql<{ n: number }>`
    with inserted as (
      insert into jobs (id, connection_id, issue_id, action, dedupe_key, payload) values ${sql.join(rows)}
      on conflict (connection_id, dedupe_key) do nothing
      returning 1
    ), counted as (select count(*)::int as n from inserted)
    select n, pg_notify(${JOBS_CHANNEL}, ${origin}::text) from counted where n > 0`.execute(trx);
  return counted[0]?.n ?? 0;
}

/**
 * A claimed job, with the version (`updated_at`) of its connection's row at the claim and, for
 * a `create`, whether its issue was linked on the connection then (null for other actions).
 */
export type ClaimedJob = JobRow & { connectionVersion: Date; linked: boolean | null };

/** What a claim took, and whether another claim took some of the jobs it chose first (claim again). */
export interface Claim {
  jobs: ClaimedJob[];
  contended: boolean;
}

/**
 * Claims due jobs: pending ones whose time has come (a job whose lease ran out comes back as
 * pending, `requeueExpiredLeases`), of live connections that are not paused or waiting for credentials.
 * `slots` says how many more this replica may start for the connections it limits (its
 * concurrency cap minus the calls in flight, 1 while half-open); every other connection gets
 * `perConnection`. A connection with no slot is skipped, so its backlog costs nothing, and
 * one connection's backlog never takes another's place in the claim.
 *
 * One statement, so a claim costs one round trip. The connections with pending jobs are found
 * by a skip scan of `jobs_pending_by_connection` (one probe each), and each gives at most its
 * slots of due jobs from its own part of that index; the oldest of those are chosen. A claim
 * then costs one probe per connection with queued jobs, whatever their backlogs. Only the
 * chosen jobs are locked (`skip locked`, their state checked again), and `contended` says
 * another replica took some of them first. Claimed jobs are `running` with a lease and one
 * more attempt counted; each names the version of its connection's row, so the worker reads
 * a connection again only when it changed, and a create says whether its link exists, so the
 * create does not ask again.
 */
export async function claimJobs(db: Kysely<IntegrationDatabase>, opts: ClaimOptions): Promise<Claim> {
  const { rows } = await claimStatement(opts).execute(db);
  const jobs = rows.filter((r) => r.id !== null).map(({ chosen: _chosen, ...job }) => job as ClaimedJob);
  return { jobs, contended: jobs.length < Number(rows[0]?.chosen ?? 0) };
}

export interface ClaimOptions {
  limit: number;
  leaseMs: number;
  perConnection: number;
  slots: ReadonlyMap<string, number>;
}

/** The claim's one statement (its plan is checked in test/claim-jobs.test.ts). */
export function claimStatement(opts: ClaimOptions) {
  const limited = [...opts.slots.keys()];
  const counts = limited.map((id) => Math.max(0, opts.slots.get(id)!));
  const live = sql`c.deleted_at is null and not c.paused and c.status <> 'needs-attention'`;
  return sql<ClaimedJob & { chosen: string }>`
    with recursive queued(connection_id) as (
      (select connection_id from jobs where state = 'pending' order by connection_id limit 1)
      union all
      select (select j.connection_id from jobs j where j.state = 'pending' and j.connection_id > q.connection_id order by j.connection_id limit 1)
        from queued q
       where q.connection_id is not null
    ), limits as (
      select * from unnest(${sql.val(limited)}::uuid[], ${sql.val(counts)}::int[]) as l(connection_id, slots)
    ), slots as (
      select c.id as connection_id, coalesce(l.slots, ${opts.perConnection}::int) as slots
        from queued q
        join connections c on c.id = q.connection_id
        left join limits l on l.connection_id = c.id
       where ${live}
    ), candidates as (
      select j.id, j.connection_id, j.due_at
        from slots s
       cross join lateral (
         select j.id, j.connection_id, j.due_at
           from jobs j
          where j.connection_id = s.connection_id and j.state = 'pending' and j.due_at <= now()
          order by j.due_at
          limit s.slots) j
       where s.slots > 0
    ), chosen as (
      select id, connection_id
        from (select k.id, k.connection_id, k.due_at, row_number() over (partition by k.connection_id order by k.due_at, k.id) as nth,
                     coalesce(l.slots, ${opts.perConnection}::int) as slots
                from candidates k
                left join limits l using (connection_id)) ranked
       where nth <= slots
       order by due_at
       limit ${opts.limit}
    ), locked as (
      -- By key only: the state is checked as a CASE, which implies no partial index's predicate.
      -- As a plain condition it let the planner read the chosen ids out of the pending-and-running
      -- index, and a plan made while few jobs were queued (Postgres keeps it) walked a whole backlog.
      select j.id, j.connection_id
        from jobs j join chosen using (id)
       where case when j.state = 'pending' then j.due_at <= now() else false end
         for update of j skip locked
    ), claimed as (
      update jobs j
         set state = 'running', attempts = j.attempts + 1, lease_until = now() + ${opts.leaseMs}::int * interval '1 millisecond'
        from locked
        join connections c on c.id = locked.connection_id
       where j.id = locked.id
      returning j.id, j.connection_id as "connectionId", j.issue_id as "issueId", j.action, j.dedupe_key as "dedupeKey", j.payload, j.state, j.attempts,
                j.due_at as "dueAt", j.lease_until as "leaseUntil", j.last_error as "lastError", j.created_at as "createdAt", j.finished_at as "finishedAt",
                c.updated_at as "connectionVersion",
                case when j.action = 'create' then exists (select 1 from links l where l.connection_id = j.connection_id and l.issue_id = j.issue_id) end as linked
    )
    select n.chosen, claimed.* from (select count(*) as chosen from chosen) n left join claimed on true`;
}

/**
 * Gives the jobs whose lease ran out (their replica died mid-call) back to the queue, due as
 * they were, for the next claim. Run on the worker's poll, not in every claim: a claim then
 * reads pending jobs only, and an expired lease is rare.
 */
export async function requeueExpiredLeases(db: Kysely<IntegrationDatabase>): Promise<number> {
  const result = await sql`update jobs set state = 'pending', lease_until = null where state = 'running' and lease_until < now()`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** A try's end: the job is finished (`done`/`failed`) or waits `delayMs` to run again. */
export type JobSettlement =
  | { jobId: string; state: 'done' | 'failed'; error: string | null }
  | { jobId: string; state: 'pending'; delayMs: number; error: string | null; countAttempt: boolean };

/**
 * The update that settles the tries of many jobs (a part of the results' one statement,
 * storage/try-results.ts). Only jobs still `running` change: a job whose lease ran out and
 * that another try took over is left to it. The jobs are found by key, the state checked in a
 * CASE for the reason the claim's lock does (`claimStatement`): as a plain condition, a plan
 * made while nothing was queued read them out of the pending-and-running index, walking a
 * hanging connection's backlog in every batch of results.
 */
export function settleJobsStatement(settlements: readonly JobSettlement[]): Statement {
  const rows = settlements.map((s) =>
    s.state === 'pending'
      ? sql`(${s.jobId}::uuid, 'pending', ${Math.max(0, Math.round(s.delayMs))}::int, ${s.error}::text, ${s.countAttempt ? 0 : 1}::int)`
      : sql`(${s.jobId}::uuid, ${s.state}, 0, ${s.error}::text, 0)`,
  );
  return sql`
    update jobs j set
      state = v.state,
      finished_at = case when v.state = 'pending' then null else now() end,
      due_at = case when v.state = 'pending' then now() + v.delay_ms * interval '1 millisecond' else j.due_at end,
      lease_until = null,
      last_error = v.error,
      attempts = greatest(j.attempts - v.uncount, 0)
    from (values ${sql.join(rows)}) as v(id, state, delay_ms, error, uncount)
    where j.id = v.id and case when j.state = 'running' then true else false end`;
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
