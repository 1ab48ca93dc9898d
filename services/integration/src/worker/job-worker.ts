import type pg from 'pg';
import { UnhealthyResult, type Breakers } from '@preflight/breakers';
import { listenFor, type Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import type { Registry } from 'prom-client';
import { providerErrorIn } from '../outbound/safe-fetch.ts';
import type { ConnectionRow } from '../storage/connections.ts';
import { claimJobs, JOBS_CHANNEL, requeueExpiredLeases, type ClaimedJob, type JobRow } from '../storage/jobs.ts';
import { ConnectionRows } from './connection-rows.ts';
import type { IntegrationDatabase } from '../storage/schema.ts';
import { runAction, type ActionDeps } from './actions.ts';
import { JobResults, type JobResult } from './job-results.ts';
import { workerMetrics } from './metrics.ts';
import { verdictOf, type Settled, type TryRules } from './try-results.ts';

export interface JobWorkerOptions extends TryRules {
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
  /** This replica's id: the payload of the NOTIFY its consumer's job inserts send (storage/jobs.ts). */
  replicaId: string;
}

export interface JobWorker {
  /** Claims due jobs now (after a commit that queued some). */
  kick(): void;
  stop(): Promise<void>;
}


/**
 * How long a replica waits before it claims after jobs another replica queued: that replica
 * claims them at once, so this claim only takes what it could not (its workers or the
 * connection's slots were full), and the notifications of this time share one claim. Claiming
 * at once, every replica raced for every job and most claims found nothing.
 */
export const FOREIGN_NOTIFY_DELAY_MS = 100;

/**
 * What a job NOTIFY starts: a claim now for jobs this replica queued (or of no known origin: an
 * inbound hook, a reconnection), one claim `FOREIGN_NOTIFY_DELAY_MS` later for another's.
 */
export function notifyRouter(replicaId: string, claim: () => void, delayMs = FOREIGN_NOTIFY_DELAY_MS) {
  let later: NodeJS.Timeout | undefined;
  return {
    onNotify(origin?: string): void {
      if (!origin || origin === replicaId) return claim();
      later ??= setTimeout(() => {
        later = undefined;
        claim();
      }, delayMs);
    },
    close(): void {
      clearTimeout(later);
      later = undefined;
    },
  };
}

/**
 * The worker: claims due jobs (NOTIFY, a safety poll, and again as calls finish), runs each
 * through its connection's breaker with a per-connection cap, so one connection's slow or
 * failing provider holds only its own slots, and records what each try leaves behind
 * (try-results.ts) by group commit (job-results.ts). A call inside the breaker never throws
 * but for `unavailable` failures, the only ones that count against it.
 */
export function startJobWorker(opts: JobWorkerOptions): JobWorker {
  const { db, logger } = opts;
  const log = logger.child({ component: 'integration-worker' });
  const metrics = workerMetrics(opts.registry, db);
  const results = new JobResults(db);
  const connections = new ConnectionRows(db);
  const inFlight = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let total = 0;
  let claiming = false;
  let again = false;
  let stopped = false;
  /**
   * Whether due jobs may be waiting that no claim has taken: the last claim filled its limit,
   * or could not run for the replica's cap. A finished try claims again only then, or when its
   * connection was at its own cap (its backlog waits for that slot): an idle queue is not
   * asked once per call. New jobs announce themselves (NOTIFY); jobs due later, the poll.
   */
  let backlog = true;

  /**
   * The connections this replica must hold below `perConnection` (calls in flight, a breaker
   * not closed) and how many more each may start now: 0 while open, 1 while half-open and idle.
   */
  const limitedSlots = (): Map<string, number> => {
    const slots = new Map<string, number>();
    for (const [id, used] of inFlight) slots.set(id, opts.perConnection - used);
    for (const id of opts.breakers.notClosed()) {
      const state = opts.breakers.state(id);
      const used = inFlight.get(id) ?? 0;
      slots.set(id, state === 'half-open' && used === 0 ? 1 : 0);
    }
    return slots;
  };

  /** One claim for every try that ends in the same turn of the event loop, not one each. */
  let claimScheduled = false;
  function claimSoon(): void {
    if (claimScheduled) return;
    claimScheduled = true;
    setImmediate(() => {
      claimScheduled = false;
      void claim();
    });
  }

  async function claim(): Promise<void> {
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    try {
      do {
        again = false;
        if (stopped) break;
        if (total >= opts.workers) {
          backlog = true;
          break;
        }
        const limit = opts.workers - total;
        const { jobs, contended } = await claimJobs(db, { limit, leaseMs: opts.leaseMs, perConnection: opts.perConnection, slots: limitedSlots() });
        // Another replica took some of the chosen jobs first: what it left is asked for again.
        backlog = jobs.length === limit || contended;
        metrics.claims.inc({ result: jobs.length > 0 ? 'took' : 'empty' });
        if (jobs.length > 0) {
          await connections.refresh(jobs);
          for (const job of jobs) start(job, connections.get(job.connectionId));
        }
      } while (again || backlog);
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'claiming integration jobs failed; the poll tries again');
    } finally {
      claiming = false;
    }
  }

  function start(job: ClaimedJob, connection: ConnectionRow | undefined): void {
    total += 1;
    inFlight.set(job.connectionId, (inFlight.get(job.connectionId) ?? 0) + 1);
    metrics.lag.observe({ action: job.action }, Math.max(0, Date.now() - job.createdAt.getTime()) / 1000);
    const task = run(job, connection)
      .catch((err: unknown) => log.error({ err: (err as Error).message, jobId: job.id }, 'recording a job result failed; its lease will expire and it runs again'))
      .finally(() => {
        total -= 1;
        const used = inFlight.get(job.connectionId) ?? 1;
        if (used <= 1) inFlight.delete(job.connectionId);
        else inFlight.set(job.connectionId, used - 1);
        running.delete(task);
        const atItsCap = used >= opts.perConnection || opts.breakers.state(job.connectionId) !== 'closed';
        if (!stopped && (backlog || atItsCap)) claimSoon();
      });
    running.add(task);
  }

  async function run(job: ClaimedJob, connection: ConnectionRow | undefined): Promise<void> {
    if (!connection || connection.deletedAt) return record(job, { settlement: { jobId: job.id, state: 'failed', error: 'the connection was deleted' } });
    const began = performance.now();
    let settled: Settled;
    try {
      settled = await opts.breakers.fire(connection.id, async (): Promise<Settled> => {
        try {
          return { ok: await runAction(opts.deps, job, connection) };
        } catch (err) {
          if (providerErrorIn(err)?.kind === 'unavailable') throw UnhealthyResult.of<Settled>({ err });
          return { err };
        }
      });
    } catch (err) {
      settled = { err };
    }
    metrics.callSeconds.observe({ kind: connection.kind, action: job.action }, (performance.now() - began) / 1000);
    const verdict = verdictOf(job, connection, settled, opts);
    if (verdict.metric) metrics.jobs.inc({ action: job.action, outcome: verdict.metric });
    if (verdict.log) log[verdict.log.level](verdict.log.fields, verdict.log.msg);
    if (verdict.forgetClient) opts.deps.clients.forget(connection.id);
    record(job, verdict.result);
  }

  /**
   * Hands a try's result to the group commit without holding the job's slot for it: the row
   * stays `running` (leased) until the batch commits, so no claim takes it meanwhile.
   */
  function record(job: JobRow, result: JobResult): void {
    results.record(result).catch((err: unknown) => log.error({ err: (err as Error).message, jobId: job.id }, 'recording a job result failed; its lease will expire and it runs again'));
  }

  const notifications = notifyRouter(opts.replicaId, () => void claim());
  const listener = listenFor({ pool: opts.pool, channel: JOBS_CHANNEL, onNotify: notifications.onNotify, logger, what: 'integration jobs' });
  // The poll also gives expired leases (a replica died mid-call) back to the queue.
  const poll = setInterval(() => {
    requeueExpiredLeases(db)
      .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'requeueing expired integration jobs failed; the next poll tries again'))
      .finally(() => void claim());
  }, opts.pollMs);
  poll.unref();
  void claim();

  return {
    kick: () => void claim(),
    async stop() {
      stopped = true;
      clearInterval(poll);
      notifications.close();
      await listener.close();
      // Calls in flight finish and record their result; anything cut off is leased and runs again.
      await Promise.allSettled([...running]);
      await results.flushed();
    },
  };
}
