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
 * `slots(connectionId)` says how many more this replica may start for a connection (its
 * concurrency cap, 0 while its breaker is open), so one connection's backlog never takes the
 * whole claim; connections with no slot at all (`exclude`) are left out of the query, so their
 * backlog cannot fill the candidates either. Claimed jobs are `running` with a lease and one more attempt counted.
 */
export async function claimJobs(
  db: Kysely<IntegrationDatabase>,
  opts: { limit: number; leaseMs: number; slots: (connectionId: string) => number; exclude: readonly string[] },
): Promise<JobRow[]> {
  return db.transaction().execute(async (trx) => {
    const candidates = await sql<{ id: string; connection_id: string }>`
      select j.id, j.connection_id
        from jobs j
        join connections c on c.id = j.connection_id
       where ((j.state = 'pending' and j.due_at <= now()) or (j.state = 'running' and j.lease_until < now()))
         and c.deleted_at is null and not c.paused and c.status <> 'needs-attention'
         and j.connection_id <> all(${sql.val([...opts.exclude])}::uuid[])
       order by j.due_at
       limit ${opts.limit * 4}
         for update of j skip locked`.execute(trx);
    const taken = new Map<string, number>();
    const ids: string[] = [];
    for (const row of candidates.rows) {
      if (ids.length >= opts.limit) break;
      const used = taken.get(row.connection_id) ?? 0;
      if (used >= opts.slots(row.connection_id)) continue;
      taken.set(row.connection_id, used + 1);
      ids.push(row.id);
    }
    if (ids.length === 0) return [];
    return trx
      .updateTable('jobs')
      .set({ state: 'running', attempts: sql<number>`attempts + 1`, lease_until: sql<Date>`now() + ${`${opts.leaseMs} milliseconds`}::interval` })
      .where('id', 'in', ids)
      .returningAll()
      .execute();
  });
}

/** When the next job falls due (null when none waits): the worker sleeps until then. */
export async function nextDueAt(db: Kysely<IntegrationDatabase>): Promise<Date | null> {
  const row = await db.selectFrom('jobs').select((eb) => eb.fn.min('due_at').as('due')).where('state', '=', 'pending').executeTakeFirst();
  return (row?.due as Date | null | undefined) ?? null;
}

export async function finishJob(db: Kysely<IntegrationDatabase> | Transaction<IntegrationDatabase>, id: string, state: 'done' | 'failed', error: string | null = null): Promise<void> {
  await db.updateTable('jobs').set({ state, last_error: error, finished_at: sql<Date>`now()`, lease_until: null }).where('id', '=', id).where('state', '=', 'running').execute();
}

/**
 * Puts a job back to wait `delayMs`. `countAttempt: false` when no call was made or the
 * provider only asked us to slow down (a rate limit, an open breaker, a create still pending).
 */
export async function retryJob(db: Kysely<IntegrationDatabase>, id: string, opts: { delayMs: number; error: string | null; countAttempt: boolean }): Promise<void> {
  await db
    .updateTable('jobs')
    .set({
      state: 'pending',
      due_at: sql<Date>`now() + ${`${Math.max(0, Math.round(opts.delayMs))} milliseconds`}::interval`,
      lease_until: null,
      last_error: opts.error,
      ...(opts.countAttempt ? {} : { attempts: sql<number>`greatest(attempts - 1, 0)` }),
    })
    .where('id', '=', id)
    .where('state', '=', 'running')
    .execute();
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
