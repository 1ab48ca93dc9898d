import type pg from 'pg';
import { BreakerOpen, UnhealthyResult, type Breakers } from '@preflight/breakers';
import { listenFor, type Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import { SecretUnavailableError } from '@preflight/secret-box';
import type { Registry } from 'prom-client';
import { IssueServiceUnavailable } from '../clients/issue-client.ts';
import { backoffMs } from '../domain/backoff.ts';
import { ProviderError } from '../providers/provider.ts';
import { providerErrorIn } from '../outbound/safe-fetch.ts';
import { recordActivity, type ActivityEntry } from '../storage/activity.ts';
import { recordConnectionHealth, type ConnectionRow } from '../storage/connections.ts';
import { claimJobs, finishJob, JOBS_CHANNEL, retryJob, type JobRow } from '../storage/jobs.ts';
import type { IntegrationDatabase } from '../storage/schema.ts';
import { runAction, type ActionDeps, type ActionOutcome } from './actions.ts';
import { workerMetrics } from './metrics.ts';

export interface JobWorkerOptions {
  db: Kysely<IntegrationDatabase>;
  pool: pg.Pool;
  logger: Logger;
  registry: Registry;
  deps: ActionDeps;
  breakers: Breakers;
  /** Jobs in flight at once in this replica, and per connection. */
  workers: number;
  perConnection: number;
  leaseMs: number;
  pollMs: number;
  maxAttempts: number;
  breakerResetMs: number;
  /** The least wait before a failed create is tried again (trackers' search indexes lag new issues). */
  createRetryMinMs: number;
}

export interface JobWorker {
  /** Claims due jobs now (after a commit that queued some). */
  kick(): void;
  stop(): Promise<void>;
}

/** How long jobs wait when the issue service, our own dependency, does not answer. */
const ISSUE_SERVICE_WAIT_MS = 5_000;

/** Thrown-free result of a call inside a breaker: only `unavailable` failures count against it. */
type Settled = { ok: ActionOutcome } | { err: unknown };

/**
 * The worker: claims due jobs (NOTIFY, a safety poll, and again as calls finish), runs each
 * through its connection's breaker with a per-connection cap, so one connection's slow or
 * failing provider holds only its own slots, and turns every result into the job's next state,
 * the activity log and the connection's health.
 */
export function startJobWorker(opts: JobWorkerOptions): JobWorker {
  const { db, logger } = opts;
  const log = logger.child({ component: 'integration-worker' });
  const metrics = workerMetrics(opts.registry, db);
  const inFlight = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let total = 0;
  let claiming = false;
  let again = false;
  let stopped = false;

  const slots = (connectionId: string): number => {
    const state = opts.breakers.state(connectionId);
    if (state === 'open') return 0;
    const used = inFlight.get(connectionId) ?? 0;
    return state === 'half-open' ? (used === 0 ? 1 : 0) : opts.perConnection - used;
  };

  async function claim(): Promise<void> {
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    try {
      do {
        again = false;
        if (stopped || total >= opts.workers) break;
        const full = [...inFlight.keys()].filter((id) => slots(id) <= 0);
        const jobs = await claimJobs(db, { limit: opts.workers - total, leaseMs: opts.leaseMs, slots, exclude: [...new Set([...full, ...opts.breakers.notClosed()].filter((id) => slots(id) <= 0))] });
        if (jobs.length === 0) break;
        const connections = await db.selectFrom('connections').selectAll().where('id', 'in', [...new Set(jobs.map((j) => j.connection_id))]).execute();
        const byId = new Map(connections.map((c) => [c.id, c]));
        for (const job of jobs) start(job, byId.get(job.connection_id));
        again = true;
      } while (again);
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'claiming integration jobs failed; the poll tries again');
    } finally {
      claiming = false;
    }
  }

  function start(job: JobRow, connection: ConnectionRow | undefined): void {
    total += 1;
    inFlight.set(job.connection_id, (inFlight.get(job.connection_id) ?? 0) + 1);
    metrics.lag.observe({ action: job.action }, Math.max(0, Date.now() - job.created_at.getTime()) / 1000);
    const task = run(job, connection)
      .catch((err: unknown) => log.error({ err: (err as Error).message, jobId: job.id }, 'recording a job result failed; its lease will expire and it runs again'))
      .finally(() => {
        total -= 1;
        const left = (inFlight.get(job.connection_id) ?? 1) - 1;
        if (left <= 0) inFlight.delete(job.connection_id);
        else inFlight.set(job.connection_id, left);
        running.delete(task);
        if (!stopped) void claim();
      });
    running.add(task);
  }

  async function run(job: JobRow, connection: ConnectionRow | undefined): Promise<void> {
    if (!connection || connection.deleted_at) return finishJob(db, job.id, 'failed', 'the connection was deleted');
    const began = performance.now();
    let settled: Settled;
    try {
      settled = await opts.breakers.fire(connection.id, async (): Promise<Settled> => {
        try {
          return { ok: await runAction(opts.deps, job, connection) };
        } catch (err) {
          if (providerErrorIn(err)?.kind === 'unavailable') throw new UnhealthyResult<Settled>({ err });
          return { err };
        }
      });
    } catch (err) {
      settled = { err };
    }
    metrics.callSeconds.observe({ kind: connection.kind, action: job.action }, (performance.now() - began) / 1000);
    if ('ok' in settled) return settle(job, connection, settled.ok);
    return fail(job, connection, settled.err);
  }

  async function settle(job: JobRow, connection: ConnectionRow, outcome: ActionOutcome): Promise<void> {
    if (outcome.kind === 'wait') return retryJob(db, job.id, { delayMs: outcome.delayMs, error: outcome.why, countAttempt: false });
    await finishJob(db, job.id, 'done');
    await recordActivity(db, { connectionId: connection.id, ...outcome.activity });
    metrics.jobs.inc({ action: job.action, outcome: outcome.activity.outcome });
    if (outcome.activity.outcome === 'succeeded' && (connection.status !== 'active' || connection.last_error !== null || Date.now() - (connection.last_success_at?.getTime() ?? 0) > 1_000)) {
      await recordConnectionHealth(db, connection.id, { status: 'active', error: null });
    }
  }

  async function fail(job: JobRow, connection: ConnectionRow, err: unknown): Promise<void> {
    const inbound = job.action === 'apply-inbound';
    const externalKey = typeof job.payload.externalKey === 'string' ? job.payload.externalKey : null;
    const entry = (outcome: ActivityEntry['outcome'], error: string, statusCode: number | null = null): ActivityEntry => ({
      connectionId: connection.id,
      direction: inbound ? 'in' : 'out',
      issueId: job.issue_id,
      // The names the activity log uses for what succeeded too (actions.ts).
      action: inbound ? 'status-change' : job.action,
      outcome,
      statusCode,
      error,
      externalKey,
    });
    if (err instanceof BreakerOpen) return retryJob(db, job.id, { delayMs: opts.breakerResetMs, error: 'circuit breaker open', countAttempt: false });
    if (err instanceof IssueServiceUnavailable) {
      log.warn({ jobId: job.id, err: err.message }, 'issue service unavailable; the job waits');
      return retryJob(db, job.id, { delayMs: ISSUE_SERVICE_WAIT_MS, error: err.message, countAttempt: false });
    }
    if (err instanceof SecretUnavailableError) {
      await recordConnectionHealth(db, connection.id, { status: 'needs-attention', error: 'the credentials cannot be decrypted (their key is not configured); save them again' });
      log.error({ connectionId: connection.id, keyId: err.keyId }, 'connection credentials cannot be decrypted');
      return retryJob(db, job.id, { delayMs: 0, error: 'credentials cannot be decrypted', countAttempt: false });
    }
    const provider = providerErrorIn(err);
    if (!provider) {
      log.error({ jobId: job.id, err: (err as Error).message }, 'integration job failed unexpectedly');
      return retryOrGiveUp(job, connection, new ProviderError('unavailable', `internal error: ${(err as Error).message}`), entry);
    }
    metrics.jobs.inc({ action: job.action, outcome: provider.kind });
    switch (provider.kind) {
      case 'rate-limited':
        await recordActivity(db, entry('retrying', provider.message, provider.statusCode));
        return retryJob(db, job.id, { delayMs: provider.retryAfterMs ?? 60_000, error: provider.message, countAttempt: false });
      case 'credentials':
        // Nothing of this connection is tried again until its credentials change (the claim skips it).
        await recordActivity(db, entry('retrying', `${provider.message}; waiting for new credentials`, provider.statusCode));
        await recordConnectionHealth(db, connection.id, { status: 'needs-attention', error: provider.message });
        opts.deps.clients.forget(connection.id);
        return retryJob(db, job.id, { delayMs: 0, error: provider.message, countAttempt: false });
      case 'rejected':
        await finishJob(db, job.id, 'failed', provider.message);
        await recordActivity(db, entry('failed', provider.message, provider.statusCode));
        return recordConnectionHealth(db, connection.id, { status: 'failing', error: provider.message });
      case 'unavailable':
        return retryOrGiveUp(job, connection, provider, entry);
    }
  }

  async function retryOrGiveUp(job: JobRow, connection: ConnectionRow, provider: ProviderError, entry: (o: ActivityEntry['outcome'], e: string, s?: number | null) => ActivityEntry): Promise<void> {
    if (job.attempts >= opts.maxAttempts) {
      await finishJob(db, job.id, 'failed', provider.message);
      await recordActivity(db, entry('failed', `${provider.message} (gave up after ${job.attempts} tries)`, provider.statusCode));
    } else {
      // A create that may have reached the tracker is tried again only once its search can find what it made.
      const delayMs = job.action === 'create' ? Math.max(backoffMs(job.attempts), opts.createRetryMinMs) : backoffMs(job.attempts);
      await retryJob(db, job.id, { delayMs, error: provider.message, countAttempt: true });
      await recordActivity(db, entry('retrying', provider.message, provider.statusCode));
    }
    await recordConnectionHealth(db, connection.id, { status: 'failing', error: provider.message });
  }

  const listener = listenFor({ pool: opts.pool, channel: JOBS_CHANNEL, onNotify: () => void claim(), logger, what: 'integration jobs' });
  const poll = setInterval(() => void claim(), opts.pollMs);
  poll.unref();
  void claim();

  return {
    kick: () => void claim(),
    async stop() {
      stopped = true;
      clearInterval(poll);
      await listener.close();
      // Calls in flight finish and record their result; anything cut off is leased and runs again.
      await Promise.allSettled([...running]);
    },
  };
}
