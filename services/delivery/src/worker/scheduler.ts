import { randomUUID } from 'node:crypto';
import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import type { EarlyRecord } from '../fanout/early-start.ts';
import type { Handoff } from '../fanout/fanout.ts';
import { releaseLease, type ClaimedDelivery } from '../storage/deliveries.ts';
import { unpark } from '../storage/waiting-deliveries.ts';
import type { DeliveryDatabase } from '../storage/schema.ts';
import { AdmissionQueue } from './admissions.ts';
import { attemptRunner, RECORD_BATCH, waiting, type AttemptRunnerOptions, type Waiting } from './attempt-runner.ts';
import { startClaimLoop } from './claim-loop.ts';
import { EndpointSlots } from './endpoint-slots.ts';
import { overdueExpiry } from './overdue.ts';
import { ParkedEndpoints } from './parked-endpoints.ts';
import { reserveSlots, type ReservationRules } from './reservation.ts';

export interface SchedulerOptions extends Omit<AttemptRunnerOptions, 'onRetryRecorded' | 'parks' | 'db' | 'logger'> {
  db: Kysely<DeliveryDatabase>;
  logger: Logger;
  /** The NOTIFY channel of the claim loops (unparked deliveries wake them). */
  channel: string;
  maxPerEndpoint: number;
  workers: number;
  pollIntervalMs: number;
}

export interface Scheduler extends Handoff {
  /** New deliveries may be due (NOTIFY). */
  wake(): void;
  /** Endpoints this replica holds as stalled now (STALL_MS), for the gauge. */
  stalled(): number;
  /** Stops claiming and waits for the attempts in flight to finish and be recorded. */
  stop(): Promise<void>;
}

/**
 * Finished attempts waiting for their record, at most: counted against `workers`, a record
 * round trip would hold request slots. Their rows stay leased meanwhile, so nobody else takes
 * them. (Early attempts waiting for their fan-out transaction are bounded by the events the
 * consumer holds, and not counted here.)
 */
const MAX_UNRECORDED = 10 * RECORD_BATCH;

/**
 * How long a claim (or the fan-out's insert) leases a delivery: the wait for a slot of its
 * endpoint (at most one attempt's deadline) plus the attempt itself, with room for the endpoint
 * lookup and the record.
 */
export const schedulerLeaseMs = (attemptTimeoutMs: number): number => 2 * attemptTimeoutMs + 30_000;

/**
 * The scheduler: takes the new deliveries of this replica's fan-out (`admit`, before their
 * rows are stored, or `reserve`, handed over at commit) and those its claim loop leases
 * (`ClaimLoop`: retries, rows the fan-out had no room for, expired leases), and starts each
 * attempt (`AttemptRunner`) without waiting for it. Bounded in all (`workers` requests) and per
 * endpoint (`EndpointSlots`); an endpoint at its bound is left out of the claim, so a slow or
 * dead endpoint holds only its own slots. Attempts that could not start within their time of
 * becoming due fail unsent (`overdueExpiry`): nothing is postponed.
 */
export function startScheduler(opts: SchedulerOptions): Scheduler {
  const log = opts.logger.child({ component: 'scheduler' });
  const leaseMs = schedulerLeaseMs(opts.attemptTimeoutMs);
  const slots = new EndpointSlots(opts.maxPerEndpoint);
  /** Attempts started or failed unsent and not recorded yet: a stop waits for them. */
  const running = new Set<Promise<void>>();
  let stopping = false;
  const admissions = new AdmissionQueue((id, now) => stopping || slots.isStalled(id, now));
  const parked = new ParkedEndpoints(slots, (endpointId) => {
    void unpark(opts.db, endpointId, opts.channel).catch((err: unknown) => log.warn({ endpointId, err: (err as Error).message }, 'could not unpark deliveries; they fail unsent once overdue'));
  });
  const runner = attemptRunner({ ...opts, onRetryRecorded: () => claims.wake(), parks: parked.parks });

  /** Finished attempts waiting for their record: bounded, so a slow database holds new attempts back. */
  const unrecorded = () => running.size - slots.requesting - runner.awaitingFanout();
  /** Requests running, rows waiting and reserved: at most twice the overall bound. */
  const free = () => (unrecorded() >= MAX_UNRECORDED ? 0 : 2 * opts.workers - slots.requesting - slots.queued - slots.reservedTotal);
  const canStart = () => slots.requesting < opts.workers && unrecorded() < MAX_UNRECORDED;
  /** Whether a new delivery may start at once for the endpoint: the bounds of a claim. */
  const hasRoomFor = (endpointId: string) => !stopping && free() > 0 && slots.hasRoom(endpointId);

  const unrecordedAttempt = (w: Waiting, err: unknown) =>
    log.error({ deliveryId: w.row.id, endpointId: w.row.endpoint_id, err: (err as Error).message }, 'attempt could not be recorded; the lease will expire and it is retried');

  /** Keeps an attempt's promise until it is recorded: a stop waits for them all. */
  function track(p: Promise<void>, w: Waiting): void {
    const tracked: Promise<void> = p.catch((err: unknown) => unrecordedAttempt(w, err)).finally(() => running.delete(tracked));
    running.add(tracked);
  }

  /** Leased rows (claimed, or stored by the fan-out) wait for a slot of their endpoint. */
  function take(rows: readonly ClaimedDelivery[], token: string, dueAt?: number): void {
    for (const row of rows) slots.enqueue(waiting(row, token, dueAt ?? row.due_at.getTime()));
    pump();
  }

  const claims = startClaimLoop({
    db: opts.db,
    logger: opts.logger,
    slots,
    maxPerEndpoint: opts.maxPerEndpoint,
    pollIntervalMs: opts.pollIntervalMs,
    leaseMs,
    free,
    take,
    expireOverdue: overdueExpiry({ db: opts.db, slots, runner, attemptTimeoutMs: opts.attemptTimeoutMs, leaseMs, track }),
  });

  const reservations: ReservationRules = {
    slots,
    hasRoomFor,
    parks: parked.parks,
    accept(rows, token) {
      if (!stopping) return take(rows, token, Date.now());
      // Too late to start them here: due again at once, for another replica (or this one's next start).
      for (const row of rows) void releaseLease(opts.db, row.id, token, new Date()).catch((err: unknown) => log.warn({ deliveryId: row.id, err: (err as Error).message }, 'could not give a new delivery back; its lease will expire'));
    },
    released: () => claims.roomFreed(),
  };

  /**
   * The fan-out's early side, before the rows are stored: each row whose endpoint has room is
   * taken at once and most start at once; a row of an endpoint at its bound waits for room, in
   * order, for up to `waitMs`. Never taken (answered false): an endpoint that is stalled, a row
   * whose wait ran out, anything while stopping. `taken` settles when every row is taken or refused.
   */
  function admit(rows: readonly ClaimedDelivery[], early: readonly EarlyRecord[], waitMs: number): { token: string; taken: Promise<boolean[]> } {
    const token = randomUUID();
    const now = Date.now();
    const taken = rows.map((row, i): boolean | Promise<boolean> => {
      const id = row.endpoint_id;
      if (stopping || slots.isStalled(id, now)) return false;
      if (!admissions.has(id) && hasRoomFor(id)) {
        slots.enqueue(waiting(row, token, now, early[i]));
        return true;
      }
      return admissions.wait(waiting(row, token, now, early[i]), now + waitMs);
    });
    pump();
    return { token, taken: Promise.all(taken) };
  }

  /** Starts waiting attempts while their endpoint has a free slot and the overall bound allows. */
  function pump(): void {
    if (admissions.size > 0) admissions.admit(hasRoomFor, (w) => slots.enqueue(w));
    if (slots.queued === 0) return;
    slots.startEach(canStart, dispatch);
  }

  function dispatch(w: Waiting): void {
    const endpointId = w.row.endpoint_id;
    let freed = false;
    const freeSlot = (answered = true) => {
      if (freed) return;
      freed = true;
      slots.ended(endpointId, answered);
      if (answered) parked.answered(endpointId);
      if (!stopping) pump();
      claims.slotFreed(endpointId);
    };
    const p: Promise<void> = runner
      .run(w, freeSlot)
      .catch((err: unknown) => unrecordedAttempt(w, err))
      .finally(() => {
        freeSlot();
        // The slot's own pump ran when the request ended; this one matters only when finished
        // attempts waiting for their record had reached their bound and held starts back.
        const heldBack = unrecorded() >= MAX_UNRECORDED;
        running.delete(p);
        if (heldBack && !stopping) pump();
        claims.roomFreed();
      });
    running.add(p);
  }

  return {
    admit,
    reportFinals: runner.reportFinals,
    reserve: (endpointIds) => reserveSlots(endpointIds, reservations),
    wake: () => claims.wake(),
    stalled: () => slots.stalledCount(Date.now()),
    async stop() {
      stopping = true;
      admissions.sweep();
      await claims.stop();
      // Leased but never started: due again at once, for this or another replica.
      await Promise.all(slots.drain().map((w) => runner.giveBack(w, new Date()).catch((err: unknown) => log.warn({ deliveryId: w.row.id, err: (err as Error).message }, 'could not give a waiting delivery back; its lease will expire'))));
      await Promise.all(running);
      await runner.close();
    },
  };
}
