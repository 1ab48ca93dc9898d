import { randomUUID } from 'node:crypto';
import type { Kysely } from '@preflight/db';
import { claimOverdue } from '../storage/waiting-deliveries.ts';
import type { DeliveryDatabase } from '../storage/schema.ts';
import { waiting, type AttemptRunner, type Waiting } from './attempt-runner.ts';
import type { EndpointSlots } from './endpoint-slots.ts';

/** Overdue rows failed per statement at most. */
const EXPIRE_BATCH = 500;

/**
 * Fails the attempts that have not started within an attempt's time of becoming due, without
 * a request: those waiting here for a slot, and the due rows of the endpoints this replica
 * holds at their bound (no claim takes those). Nothing is postponed. Each recording goes to
 * `track`, so a stop waits for it.
 */
export function overdueExpiry(opts: {
  db: Kysely<DeliveryDatabase>;
  slots: EndpointSlots;
  runner: Pick<AttemptRunner, 'unsent'>;
  attemptTimeoutMs: number;
  leaseMs: number;
  track: (recorded: Promise<void>, w: Waiting) => void;
}): () => Promise<void> {
  const { slots, runner } = opts;
  return async () => {
    const now = Date.now();
    for (const w of slots.overdue(now, opts.attemptTimeoutMs)) opts.track(runner.unsent(w, now, slots.busy(w.row.endpoint_id)), w);
    const token = randomUUID();
    const rows = await claimOverdue(opts.db, { endpoints: slots.saturated(), overdueMs: opts.attemptTimeoutMs, limit: EXPIRE_BATCH, leaseMs: opts.leaseMs, token });
    for (const row of rows) {
      const w = waiting(row, token, row.due_at.getTime());
      opts.track(runner.unsent(w, Date.now(), slots.busy(row.endpoint_id)), w);
    }
  };
}
