import { randomUUID } from 'node:crypto';
import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import { Sleeper } from '@preflight/bus';
import type { EarlyRecord } from '../fanout/early-start.ts';
import type { Handoff, Reservation } from '../fanout/fanout.ts';
import { claimDue, msUntilNextDue, releaseLease, type ClaimedDelivery } from '../storage/deliveries.ts';
import { claimOverdue, unpark } from '../storage/waiting-deliveries.ts';
import type { DeliveryDatabase } from '../storage/schema.ts';
import { AdmissionQueue } from './admissions.ts';
import { attemptRunner, RECORD_BATCH, waiting, type AttemptRunnerOptions, type Waiting } from './attempt-runner.ts';
import { EndpointSlots } from './endpoint-slots.ts';

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

/** Never spin faster than this when deliveries are due but could not be claimed (locked elsewhere). */
const MIN_WAIT_MS = 20;
/**
 * Finished attempts waiting for their record, at most: counted against `workers`, a record
 * round trip would hold request slots. Their rows stay leased meanwhile, so nobody else takes
 * them. (Early attempts waiting for their fan-out transaction are bounded by the events the
 * consumer holds, and not counted here.)
 */
const MAX_UNRECORDED = 10 * RECORD_BATCH;
/** How often attempts that could not start within their time are looked for (waiting here, or due in the table). */
const EXPIRE_EVERY_MS = 250;
/** Overdue rows failed per statement at most. */
const EXPIRE_BATCH = 500;

/**
 * How long a claim (or the fan-out's insert) leases a delivery: the wait for a slot of its
 * endpoint (at most one attempt's deadline) plus the attempt itself, with room for the endpoint
 * lookup and the record.
 */
export const schedulerLeaseMs = (attemptTimeoutMs: number): number => 2 * attemptTimeoutMs + 30_000;

/**
 * The scheduler: takes the new deliveries of this replica's fan-out (`admit`, before their
 * rows are stored, or `reserve`, handed over at commit) and claims due deliveries (skip
 * locked, leased: retries, rows the fan-out had no room for, expired leases), and starts each
 * attempt (`AttemptRunner`) without waiting for it. Bounded in all (`workers` requests) and per
 * endpoint (`EndpointSlots`); an endpoint at its bound is left out of the claim, so a slow or
 * dead endpoint holds only its own slots. Every 250 ms, attempts that could not start within
 * their time of becoming due fail unsent: nothing is postponed. Wakes on NOTIFY, when an
 * endpoint runs short of waiting rows, when a retry is recorded, at the next due time it knows
 * of, and on the poll.
 */
export function startScheduler(opts: SchedulerOptions): Scheduler {
  const log = opts.logger.child({ component: 'scheduler' });
  const leaseMs = schedulerLeaseMs(opts.attemptTimeoutMs);
  const sleeper = new Sleeper();
  const slots = new EndpointSlots(opts.maxPerEndpoint);
  const running = new Set<Promise<void>>();
  let stopping = false;
  const admissions = new AdmissionQueue((id, now) => stopping || slots.isStalled(id, now));
  let roomless = false;
  /**
   * Whether a claim may find anything. Rows the fan-out hands over need none, so the loop
   * runs when due rows may exist that nobody holds: `dueAnywhere` after a NOTIFY (rows the
   * fan-out had no room for), a recorded retry or a claim that found rows, until a claim finds
   * none; `dueFor`, the endpoints that empty claim left out (they were at their bound), until
   * the next one. The poll claims regardless (expired leases).
   */
  let dueAnywhere = true;
  let dueFor = new Set<string>();
  let claimWakes = 0;
  const claimWanted = (endpointId?: string) => dueAnywhere || (endpointId === undefined ? dueFor.size > 0 : dueFor.has(endpointId));
  const wakeClaims = () => {
    dueAnywhere = true;
    claimWakes += 1;
    sleeper.wake();
  };
  /** Endpoints this replica parked deliveries of: the first answer of one unparks them. */
  const parkedHere = new Set<string>();
  const channel = opts.channel;
  /** Whether a delivery of the endpoint goes to the table parked (the endpoint is stalled here). */
  const parks = (endpointId: string, now = Date.now()) => {
    if (!slots.isStalled(endpointId, now)) return false;
    parkedHere.add(endpointId);
    return true;
  };
  const runner = attemptRunner({ ...opts, onRetryRecorded: wakeClaims, parks });

  /** Finished attempts waiting for their record: bounded, so a slow database holds new attempts back. */
  const unrecorded = () => running.size - slots.requesting - runner.awaitingFanout();
  /** Requests running, rows waiting and reserved: at most twice the overall bound. */
  const free = () => (unrecorded() >= MAX_UNRECORDED ? 0 : 2 * opts.workers - slots.requesting - slots.queued - slots.reservedTotal);
  const canStart = () => slots.requesting < opts.workers && unrecorded() < MAX_UNRECORDED;
  /** Whether a new delivery may start at once for the endpoint: the bounds of a claim. */
  const hasRoomFor = (endpointId: string) => !stopping && free() > 0 && slots.hasRoom(endpointId);

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

  /**
   * The fan-out's side: a slot for each endpoint that has room by the same bounds as a claim
   * (twice its capacity, twice `workers` in all). Held until the rows are accepted (committed:
   * they wait in `ready` like claimed rows) or released. A row refused is inserted due at once.
   */
  function reserve(endpointIds: readonly string[]): Reservation {
    const token = randomUUID();
    const granted = endpointIds.map((id) => {
      if (!hasRoomFor(id)) return false;
      slots.reserve(id);
      return true;
    });
    const now = Date.now();
    const parked = endpointIds.map((id, i) => !granted[i] && parks(id, now));
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      for (const [i, id] of endpointIds.entries()) if (granted[i]) slots.unreserve(id);
      return true;
    };
    return {
      token,
      granted,
      parked,
      accept(rows) {
        if (!settle()) return;
        if (stopping) {
          // Too late to start them here: due again at once, for another replica (or this one's next start).
          for (const row of rows) void releaseLease(opts.db, row.id, token, new Date()).catch((err: unknown) => log.warn({ deliveryId: row.id, err: (err as Error).message }, 'could not give a new delivery back; its lease will expire'));
          return;
        }
        const acceptedAt = Date.now();
        for (const row of rows) slots.enqueue(waiting(row, token, acceptedAt));
        pump();
      },
      release() {
        if (settle() && roomless && claimWanted()) sleeper.wake();
      },
    };
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
      if (answered && parkedHere.delete(endpointId)) {
        void unpark(opts.db, endpointId, channel).catch((err: unknown) => log.warn({ endpointId, err: (err as Error).message }, 'could not unpark deliveries; they fail unsent once overdue'));
      }
      if (!stopping) pump();
      // The claim loop runs when this endpoint has less than one round of its bound left
      // waiting (or the last claim found no room), and a claim may find something.
      if ((slots.waiting(endpointId) < opts.maxPerEndpoint && claimWanted(endpointId)) || (roomless && claimWanted())) sleeper.wake();
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
        if (roomless && claimWanted()) sleeper.wake();
      });
    running.add(p);
  }

  const unrecordedAttempt = (w: Waiting, err: unknown) =>
    log.error({ deliveryId: w.row.id, endpointId: w.row.endpoint_id, err: (err as Error).message }, 'attempt could not be recorded; the lease will expire and it is retried');

  /** Keeps an attempt's promise until it is recorded: a stop waits for them all. */
  function track(p: Promise<void>, w: Waiting): void {
    const tracked: Promise<void> = p.catch((err: unknown) => unrecordedAttempt(w, err)).finally(() => running.delete(tracked));
    running.add(tracked);
  }

  /** Fails the waiting attempts, and the due rows of saturated endpoints, that have not started within an attempt's time. */
  async function expireOverdue(): Promise<void> {
    const now = Date.now();
    for (const w of slots.overdue(now, opts.attemptTimeoutMs)) track(runner.unsent(w, now, slots.busy(w.row.endpoint_id)), w);
    const full = slots.saturated();
    const token = randomUUID();
    const rows = await claimOverdue(opts.db, { endpoints: full, overdueMs: opts.attemptTimeoutMs, limit: EXPIRE_BATCH, leaseMs, token });
    for (const row of rows) {
      const w = waiting(row, token, row.due_at.getTime());
      track(runner.unsent(w, Date.now(), slots.busy(row.endpoint_id)), w);
    }
  }

  let expiredAt = 0;
  const loop = (async () => {
    while (!stopping) {
      let waitMs = opts.pollIntervalMs;
      let more = false;
      try {
        if (Date.now() - expiredAt >= EXPIRE_EVERY_MS) {
          expiredAt = Date.now();
          await expireOverdue();
        }
        const room = free();
        roomless = room <= 0;
        if (room > 0) {
          const exclude = slots.saturated();
          const roomOf = new Map<string, number>();
          for (const id of slots.known()) roomOf.set(id, slots.room(id));
          const token = randomUUID();
          const wakesBefore = claimWakes;
          const { rows: claimed, fetched } = await claimDue(opts.db, {
            limit: room,
            excludeEndpoints: exclude,
            room: roomOf,
            defaultRoom: 2 * opts.maxPerEndpoint,
            leaseMs,
            token,
          });
          for (const row of claimed) slots.enqueue(waiting(row, token, row.due_at.getTime()));
          pump();
          if (fetched > 0) dueAnywhere = true;
          else {
            // Nothing due outside `exclude`, unless something woke claims meanwhile.
            if (claimWakes === wakesBefore) dueAnywhere = false;
            dueFor = new Set(exclude);
          }
          // A full page may have hidden due rows behind rows of endpoints that just reached
          // their bound; those endpoints are left out of the next claim, so looking again at
          // once makes progress instead of waiting for a finished attempt.
          more = claimed.length === room || (fetched === room && claimed.length < fetched);
          // Only when nothing could be taken: otherwise the attempts just dispatched wake the
          // loop when they finish, and it looks again then (one query less per claim).
          if (claimed.length === 0 && !more) {
            const dueInMs = await msUntilNextDue(opts.db, slots.saturated());
            if (dueInMs !== undefined) waitMs = Math.min(opts.pollIntervalMs, Math.max(MIN_WAIT_MS, Math.ceil(dueInMs)));
          }
        }
        // Waiting attempts, or saturated endpoints' due rows, may run out of time before anything wakes the loop.
        if (slots.queued > 0 || slots.saturated().length > 0) waitMs = Math.min(waitMs, EXPIRE_EVERY_MS);
      } catch (err) {
        if (!stopping) log.warn({ err: (err as Error).message }, 'claiming deliveries failed; retrying');
      }
      if (!more && !stopping) await sleeper.wait(waitMs);
    }
    // Leased but never started: due again at once, for this or another replica.
    await Promise.all(slots.drain().map((w) => runner.giveBack(w, new Date()).catch((err: unknown) => log.warn({ deliveryId: w.row.id, err: (err as Error).message }, 'could not give a waiting delivery back; its lease will expire'))));
    await Promise.all(running);
  })();

  return {
    admit,
    reportFinals: runner.reportFinals,
    reserve,
    wake: wakeClaims,
    stalled: () => slots.stalledCount(Date.now()),
    async stop() {
      stopping = true;
      admissions.sweep();
      sleeper.wake();
      await loop;
      await runner.close();
    },
  };
}
