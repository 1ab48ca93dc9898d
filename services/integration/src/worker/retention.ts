import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import { pruneActivity } from '../storage/activity.ts';
import { pruneFinishedJobs } from '../storage/jobs.ts';
import type { IntegrationDatabase } from '../storage/schema.ts';

const SWEEP_MS = 10 * 60_000;

/** Drops activity entries and finished jobs older than the retention, every ten minutes on each replica. */
export function startRetention(db: Kysely<IntegrationDatabase>, days: number, logger: Logger): { stop(): void } {
  const sweep = async () => {
    try {
      const [activity, jobs] = [await pruneActivity(db, days), await pruneFinishedJobs(db, days)];
      if (activity + jobs > 0) logger.info({ activity, jobs, days }, 'integration activity and finished jobs pruned');
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'integration retention sweep failed; the next one tries again');
    }
  };
  const timer = setInterval(() => void sweep(), SWEEP_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
