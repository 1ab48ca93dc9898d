import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import { Counter, type Registry } from 'prom-client';
import { Sleeper } from '@preflight/bus';
import { deleteAttemptsBefore, deleteEnvelopesBefore } from '../storage/retention.ts';
import type { DeliveryDatabase } from '../storage/schema.ts';

/** Rows per delete statement: short statements, so a sweep never holds many locks or a long transaction. */
export const RETENTION_BATCH = 5_000;
const DAY_MS = 86_400_000;

export interface LogRetention {
  /** Ends the sweeps (one under way ends after its current statement). */
  stop(): Promise<void>;
}

/**
 * Keeps the delivery log to `retentionDays`: every `everyMs` (first after a random part of
 * it, so replicas started together do not sweep together), attempts older than that are
 * deleted, and so are envelopes that old that no open delivery needs, in statements of
 * RETENTION_BATCH rows until none is left. Replicas may sweep at once: each skips the rows
 * another holds. `retentionDays` 0 keeps everything (no sweep runs).
 */
export function startLogRetention(opts: { db: Kysely<DeliveryDatabase>; registry: Registry; logger: Logger; retentionDays: number; everyMs: number }): LogRetention {
  const log = opts.logger.child({ component: 'retention' });
  const deleted = new Counter({
    name: 'delivery_log_rows_deleted_total',
    help: 'Rows the delivery log retention deleted, by table (attempts, envelopes): older than DELIVERY_LOG_RETENTION_DAYS.',
    labelNames: ['table'],
    registers: [opts.registry],
  });
  const sleeper = new Sleeper();
  let stopping = false;

  async function drain(table: 'attempts' | 'envelopes', once: () => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await once();
      deleted.inc({ table }, n);
      total += n;
      if (n < RETENTION_BATCH || stopping) return total;
    }
  }

  async function sweep(): Promise<void> {
    const cutoff = new Date(Date.now() - opts.retentionDays * DAY_MS);
    const attempts = await drain('attempts', () => deleteAttemptsBefore(opts.db, cutoff, RETENTION_BATCH));
    const envelopes = stopping ? 0 : await drain('envelopes', () => deleteEnvelopesBefore(opts.db, cutoff, RETENTION_BATCH));
    if (attempts + envelopes > 0) log.info({ attempts, envelopes, before: cutoff.toISOString() }, 'delivery log retention: old rows deleted');
  }

  const loop = (async () => {
    if (opts.retentionDays <= 0) return;
    let waitMs = Math.floor(Math.random() * opts.everyMs);
    while (!stopping) {
      await sleeper.wait(waitMs);
      if (stopping) break;
      try {
        await sweep();
      } catch (err) {
        if (!stopping) log.warn({ err: (err as Error).message }, 'delivery log retention failed; will retry at the next sweep');
      }
      waitMs = opts.everyMs;
    }
  })();

  return {
    async stop() {
      stopping = true;
      sleeper.wake();
      await loop;
    },
  };
}
