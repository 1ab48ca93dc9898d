import { randomUUID } from 'node:crypto';
import { PinnedAgents } from '../attempt/agents.ts';
import { Batcher, type Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import { post, type PostResult } from '../attempt/post.ts';
import { Targets, type Resolver } from '../attempt/target.ts';
import { Deadlines } from '../attempt/deadlines.ts';
import type { EndpointDirectory } from '../clients/endpoint-directory.ts';
import type { WebhookClient } from '../clients/webhook-client.ts';
import { nextStep } from '../domain/schedule.ts';
import { deliveryHeaders, signingKeysOf, type SigningSecrets } from '../domain/signatures.ts';
import { newAttemptId } from '../domain/ids.ts';
import { BREAKER_OPEN_ERROR, notStartedError } from '../domain/unsent.ts';
import type { EarlyRecord } from '../fanout/early-start.ts';
import type { Handoff, Reservation } from '../fanout/fanout.ts';
import { claimDue, claimOverdue, msUntilNextDue, recordAttempts, releaseLease, type AttemptCompletion, type ClaimedDelivery, type UnreportedOutcome } from '../storage/deliveries.ts';
import type { AttemptOutcome, DeliveryDatabase } from '../storage/schema.ts';
import { BreakerOpen, UnhealthyResult, type Breakers } from './breakers.ts';
import type { DeliveryMetrics } from './metrics.ts';
import { Sleeper } from '@preflight/bus';

export interface SchedulerOptions {
  db: Kysely<DeliveryDatabase>;
  /** Endpoints as the webhook service has them (cached for a few seconds). */
  endpoints: Pick<EndpointDirectory, 'endpoint' | 'cachedEndpoint' | 'refresh'>;
  /** Operator deliveries (redeliver, recover, test) look their endpoint up by id, whatever its filter. */
  webhooks: Pick<WebhookClient, 'endpointById'>;
  breakers: Breakers;
  metrics: DeliveryMetrics;
  logger: Logger;
  attemptTimeoutMs: number;
  /** Waits between attempts; attempts in all = length + 1. */
  retrySchedule: readonly number[];
  maxPerEndpoint: number;
  workers: number;
  pollIntervalMs: number;
  allowPrivate: boolean;
  resolve?: Resolver;
  /**
   * Reports final outcomes (delivered or failed) to the webhook service before their attempts
   * are recorded, so they are recorded as reported; a throw leaves them to the outcome reporter.
   */
  reportOutcomes: (finals: UnreportedOutcome[]) => Promise<void>;
  /** Called when a delivery became final but its outcome is still to be reported. */
  onUnreported: () => void;
}

export interface Scheduler extends Handoff {
  /** New deliveries may be due (NOTIFY). */
  wake(): void;
  /** Endpoints this replica holds as stalled now (STALL_MS), for the gauge. */
  stalled(): number;
  /** Stops claiming and waits for the attempts in flight to finish and be recorded. */
  stop(): Promise<void>;
}

/** How long the webhook service may be unreachable before a claimed delivery is tried again. */
const DEPENDENCY_RETRY_MS = 2_000;
/** Never spin faster than this when deliveries are due but could not be claimed (locked elsewhere). */
const MIN_WAIT_MS = 20;
/** Attempts recorded per statement at most. */
const RECORD_BATCH = 200;
/**
 * How long finished attempts gather before they are recorded (and their outcomes reported).
 * The receiver has its delivery already; only the log, the slot in `workers` and the lease
 * wait. Without it, a steady flow was recorded in batches of a few, each costing a statement
 * and an outcome call to the webhook service.
 */
const RECORD_LINGER_MS = 5;
/**
 * Finished attempts waiting for their record, at most. The record (outcome call, statement,
 * linger) takes tens of ms under load; counted against `workers` as before, it held slots
 * that requests could use, and capped throughput at `workers` per record round trip. Their
 * rows stay leased meanwhile, so nobody else takes them. Attempts the fan-out started
 * before their rows were stored are recorded by its transaction, or after it: a Postgres
 * commit stall of 0.7 s at 1,000 deliveries/s holds ~700 such, so the bound is about 2 s of
 * that flow (those waiting for the fan-out's own transaction are bounded by the events the
 * consumer holds, and not counted here).
 */
const MAX_UNRECORDED = 10 * RECORD_BATCH;
/** How often attempts that could not start within their time are looked for (waiting here, or due in the table). */
const EXPIRE_EVERY_MS = 250;
/** Overdue rows failed per statement at most. */
const EXPIRE_BATCH = 500;
/**
 * An endpoint at its bound none of whose requests has been answered for this long is stalled
 * (it hangs, or answers in seconds; a request that timed out is no answer): the fan-out stores
 * its new deliveries at once instead of holding them in memory for room (ADMIT_WAIT_MS).
 */
const STALL_MS = 1_000;

/**
 * A leased delivery waiting for a slot of its endpoint; `early` only for one the fan-out
 * started before its row was stored. `dueAt` (epoch ms): when its attempt became due; one
 * that has not started an attempt's time later fails without a request.
 */
interface Waiting {
  row: ClaimedDelivery;
  token: string;
  dueAt: number;
  early?: EarlyRecord | undefined;
}

/** A new delivery of the fan-out waiting for room (`admit`). */
interface Admission extends Waiting {
  early: EarlyRecord;
  deadline: number;
  resolve: (taken: boolean) => void;
}

/** Claimed and handed-over rows are stored already. */
const STORED = Promise.resolve(true);
/** How often waiting admissions are checked against their deadline and their endpoint's state. */
const ADMISSION_SWEEP_MS = 50;

/**
 * How long a claim (or the fan-out's insert) leases a delivery: the wait in `ready` (until a
 * slot of its endpoint frees: at most one attempt's deadline) plus the attempt itself, with
 * room for the endpoint lookup and the record.
 */
export const schedulerLeaseMs = (attemptTimeoutMs: number): number => 2 * attemptTimeoutMs + 30_000;

/**
 * The scheduler: takes the new deliveries of this replica's fan-out (`admit`, before their
 * rows are stored, or `reserve`, handed over at commit) and claims due deliveries (skip locked, leased: retries, rows the
 * fan-out had no room for, expired leases), dispatches each attempt without waiting for it,
 * and keeps claiming while slots are free and a claim may find something. Bounded in all (`workers`) and per
 * endpoint (`maxPerEndpoint`, 1 while its breaker is half-open); an endpoint at its bound is
 * left out of the claim, so a slow or dead endpoint holds only its own slots and never the
 * rows or slots of healthy endpoints. An open breaker moves that endpoint's due attempts to
 * its half-open time without using an attempt. Wakes on NOTIFY, when an endpoint runs out of
 * waiting rows, when a retry is recorded, at the next due time it knows of, and on the poll.
 *
 * Per-attempt database work is batched: one claim statement takes every row there is room
 * for (up to twice each endpoint's bound: the rows beyond its free slots wait in `ready`), and
 * finished attempts are recorded together (group commit, `Batcher`). An endpoint's
 * slot is freed when its request is over, before the record is written (the row stays leased
 * until then, so nobody else takes it); the overall bound (`workers`) counts requests, and the
 * finished attempts waiting for their record are bounded apart (`MAX_UNRECORDED`).
 */
export function startScheduler(opts: SchedulerOptions): Scheduler {
  const log = opts.logger.child({ component: 'scheduler' });
  const leaseMs = schedulerLeaseMs(opts.attemptTimeoutMs);
  const agents = new PinnedAgents(opts.attemptTimeoutMs);
  const deadlines = new Deadlines(opts.attemptTimeoutMs);
  const targets = new Targets({ allowPrivate: opts.allowPrivate, resolve: opts.resolve });
  const sleeper = new Sleeper();
  const perEndpoint = new Map<string, number>();
  const running = new Set<Promise<void>>();
  const recorder = new Batcher<AttemptCompletion, boolean>(async (items) => recordAttempts(opts.db, await reportedFirst(items)), RECORD_BATCH, RECORD_LINGER_MS);

  /**
   * The batch's final outcomes are reported before the batch is recorded, and recorded as
   * reported: the outcome mark costs no row version of its own and no reporter round. Should
   * the report fail, they are recorded unreported and the outcome reporter retries them. A crash
   * between the two leaves the attempts unrecorded: the deliveries are tried again when their
   * leases expire and their outcomes reported again (at least once, as the reporter does).
   */
  async function reportedFirst(items: AttemptCompletion[]): Promise<AttemptCompletion[]> {
    const reportable = (c: AttemptCompletion) => !c.reported && (c.next.status === 'delivered' || c.next.status === 'failed');
    const finals = items.filter(reportable);
    if (finals.length === 0) return items;
    try {
      await opts.reportOutcomes(
        finals.map((c) => ({ id: c.attempt.deliveryId, endpoint_id: c.attempt.endpointId, org_id: c.orgId, event_type: c.attempt.eventType, status: c.next.status })),
      );
    } catch (err) {
      log.warn({ outcomes: finals.length, err: (err as Error).message }, 'reporting delivery outcomes failed; the outcome reporter will retry them');
      opts.onUnreported();
      return items;
    }
    return items.map((c) => (reportable(c) ? { ...c, reported: true } : c));
  }
  let stopping = false;

  // Claimed (leased) rows waiting for a slot of their endpoint: up to one more round of its
  // bound, so that a freed slot starts the next attempt at once instead of after the next
  // claim's round trips (which capped each endpoint at about 4 attempts per claim cycle).
  const ready = new Map<string, Waiting[]>();
  let queued = 0;
  /** Slots the fan-out reserved for rows it is inserting leased to this replica (see `reserve`). */
  const reserved = new Map<string, number>();
  let reservedTotal = 0;
  /** When a request of the endpoint last ended (or its first one started): stalled endpoints (`STALL_MS`) are told by it. */
  const progressAt = new Map<string, number>();
  let roomless = false;
  /**
   * Whether a claim may find anything. Rows the fan-out hands over need none, so the loop
   * runs when due rows may exist that nobody holds: `dueAnywhere` after a NOTIFY (rows the
   * fan-out had no room for), a recorded retry or a claim that found rows, until a claim finds
   * none; `dueFor`, the endpoints that empty claim left out (they were at their bound), until
   * the next one. The poll claims regardless (expired leases). Without this, every request
   * that emptied its endpoint's queue cost a claim and a due-time query that found nothing.
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

  const busy = (endpointId: string) => perEndpoint.get(endpointId) ?? 0;
  const capacity = (_endpointId: string) => opts.maxPerEndpoint;
  const held = (endpointId: string) => busy(endpointId) + (ready.get(endpointId)?.length ?? 0) + (reserved.get(endpointId) ?? 0);
  const known = () => new Set([...perEndpoint.keys(), ...ready.keys(), ...reserved.keys()]);
  const saturated = () => [...known()].filter((id) => held(id) >= 2 * capacity(id));
  /** Attempts whose request has not ended yet (`workers` bounds them); `running` also holds those waiting for their record. */
  let requesting = 0;
  /** Finished attempts waiting for their record: bounded, so a slow database holds new attempts back. */
  const unrecorded = () => running.size - requesting - awaitingFanout;
  /** Requests running, rows waiting in `ready` and reserved: at most twice the overall bound. */
  const free = () => (unrecorded() >= MAX_UNRECORDED ? 0 : 2 * opts.workers - requesting - queued - reservedTotal);
  const canStart = () => requesting < opts.workers && unrecorded() < MAX_UNRECORDED;

  function enqueue(row: ClaimedDelivery, token: string, dueAt: number, early?: EarlyRecord): void {
    const waiting = ready.get(row.endpoint_id);
    const entry = { row, token, dueAt, early };
    if (waiting) waiting.push(entry);
    else ready.set(row.endpoint_id, [entry]);
    queued += 1;
  }

  /** Whether a new delivery may start at once for the endpoint: the bounds of a claim (twice its capacity, twice `workers` in all). */
  const hasRoomFor = (endpointId: string) => !stopping && free() > 0 && held(endpointId) < 2 * capacity(endpointId);

  /**
   * New deliveries of the fan-out waiting for room, per endpoint, in the order they came: the
   * backlog of a busy endpoint waits here (and its events in JetStream) rather than as rows to
   * claim, for up to their deadline.
   */
  const admissions = new Map<string, Admission[]>();
  let admissionSweep: NodeJS.Timeout | undefined;
  /** Early attempts that are over, waiting for their fan-out transaction (bounded by the events the consumer holds, not `MAX_UNRECORDED`). */
  let awaitingFanout = 0;

  /**
   * The fan-out's early side, before the rows are stored: each row whose endpoint has room (the
   * bounds of a claim) is taken at once, in `ready`, and most start at once; a row of an
   * endpoint at its bound waits for room, in order, for up to `waitMs`. Never taken (answered
   * false): an endpoint that is stalled (STALL_MS), a row whose wait ran out, anything while
   * stopping. `taken` settles when every row is taken or refused.
   */
  function admit(rows: readonly ClaimedDelivery[], early: readonly EarlyRecord[], waitMs: number): { token: string; taken: Promise<boolean[]> } {
    const token = randomUUID();
    const now = Date.now();
    const taken = rows.map((row, i): boolean | Promise<boolean> => {
      const id = row.endpoint_id;
      if (stopping || isStalled(id, now)) return false;
      if (!admissions.has(id) && hasRoomFor(id)) {
        enqueue(row, token, now, early[i]);
        return true;
      }
      return new Promise<boolean>((resolve) => {
        const admission: Admission = { row, token, dueAt: now, early: early[i]!, deadline: now + waitMs, resolve };
        const list = admissions.get(id);
        if (list) list.push(admission);
        else admissions.set(id, [admission]);
        admissionSweep ??= setInterval(sweepAdmissions, ADMISSION_SWEEP_MS);
      });
    });
    pump();
    return { token, taken: Promise.all(taken) };
  }

  /** Refuses waiting admissions whose deadline passed or whose endpoint will not take attempts soon. */
  function sweepAdmissions(): void {
    const now = Date.now();
    for (const [id, list] of admissions) {
      const unavailable = stopping || isStalled(id, now);
      const kept = list.filter((a) => {
        if (!unavailable && a.deadline > now) return true;
        a.resolve(false);
        return false;
      });
      if (kept.length > 0) admissions.set(id, kept);
      else admissions.delete(id);
    }
    if (admissions.size === 0) {
      clearInterval(admissionSweep);
      admissionSweep = undefined;
    }
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
      reserved.set(id, (reserved.get(id) ?? 0) + 1);
      reservedTotal += 1;
      return true;
    });
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      for (const [i, id] of endpointIds.entries()) {
        if (!granted[i]) continue;
        const n = (reserved.get(id) ?? 0) - 1;
        if (n > 0) reserved.set(id, n);
        else reserved.delete(id);
        reservedTotal -= 1;
      }
      return true;
    };
    return {
      token,
      granted,
      accept(rows) {
        if (!settle()) return;
        if (stopping) {
          // Too late to start them here: due again at once, for another replica (or this one's next start).
          for (const row of rows) void releaseLease(opts.db, row.id, token, new Date()).catch((err: unknown) => log.warn({ deliveryId: row.id, err: (err as Error).message }, 'could not give a new delivery back; its lease will expire'));
          return;
        }
        const now = Date.now();
        for (const row of rows) enqueue(row, token, now);
        pump();
      },
      release() {
        if (settle() && roomless && claimWanted()) sleeper.wake();
      },
    };
  }
  /** A saturated endpoint none of whose requests has been answered for STALL_MS. */
  function isStalled(endpointId: string, now: number): boolean {
    return held(endpointId) >= 2 * capacity(endpointId) && busy(endpointId) > 0 && now - (progressAt.get(endpointId) ?? now) >= STALL_MS;
  }

  /** Starts waiting attempts while their endpoint has a free slot and the overall bound allows. */
  function pump(): void {
    if (admissions.size === 0 && queued === 0) return;
    for (const [id, list] of admissions) {
      while (list.length > 0 && hasRoomFor(id)) {
        const a = list.shift()!;
        enqueue(a.row, a.token, a.dueAt, a.early);
        a.resolve(true);
      }
      if (list.length === 0) admissions.delete(id);
    }
    for (const [id, waiting] of ready) {
      if (!canStart()) return;
      while (waiting.length > 0 && canStart() && busy(id) < capacity(id)) {
        const next = waiting.shift()!;
        queued -= 1;
        dispatch(next);
      }
      if (waiting.length === 0) ready.delete(id);
    }
  }

  function dispatch(w: Waiting): void {
    const row = w.row;
    if (busy(row.endpoint_id) === 0) progressAt.set(row.endpoint_id, Date.now());
    perEndpoint.set(row.endpoint_id, busy(row.endpoint_id) + 1);
    requesting += 1;
    let freed = false;
    /** `answered` false: the request ran out of time, which is no sign of life (see STALL_MS). */
    const freeSlot = (answered = true) => {
      if (freed) return;
      freed = true;
      requesting -= 1;
      if (answered) progressAt.set(row.endpoint_id, Date.now());
      const n = busy(row.endpoint_id) - 1;
      if (n > 0) perEndpoint.set(row.endpoint_id, n);
      else {
        perEndpoint.delete(row.endpoint_id);
        progressAt.delete(row.endpoint_id);
      }
      if (!stopping) pump();
      // The claim loop runs when this endpoint has less than one round of its bound left
      // waiting (or the last claim found no room), and a claim may find something. Waiting
      // until nothing was left waiting left its slots idle for a claim's round trip each
      // time; a wake per finished request cost a claim round trip each.
      const waiting = ready.get(row.endpoint_id)?.length ?? 0;
      if ((waiting < capacity(row.endpoint_id) && claimWanted(row.endpoint_id)) || (roomless && claimWanted())) sleeper.wake();
    };
    const p: Promise<void> = attempt(w, freeSlot)
      .catch((err: unknown) => log.error({ deliveryId: row.id, endpointId: row.endpoint_id, err: (err as Error).message }, 'attempt could not be recorded; the lease will expire and it is retried'))
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

  /** Gives a delivery back without using an attempt, once (and if) its row is stored. */
  async function giveBack({ row, token, early }: Waiting, until: Date): Promise<void> {
    early?.notAttempted();
    if (await (early?.stored ?? STORED)) await releaseLease(opts.db, row.id, token, until);
  }

  /**
   * The endpoint as it is now; undefined cancels the delivery. An event's delivery goes to an
   * endpoint still enabled and subscribed (through the endpoint cache); a redelivery or a
   * recovery to one still enabled, whatever its filter (the operator chose the event); a test
   * to the endpoint whatever its state.
   */
  async function endpointFor(row: ClaimedDelivery): Promise<SigningSecrets | undefined> {
    if (row.trigger === 'event') {
      const cached = opts.endpoints.cachedEndpoint(row.org_id, row.event_type, row.endpoint_id);
      return cached ? cached.endpoint : await opts.endpoints.endpoint(row.org_id, row.event_type, row.endpoint_id);
    }
    const endpoint = await opts.webhooks.endpointById(row.endpoint_id);
    return endpoint && (endpoint.isEnabled || row.trigger === 'test') ? endpoint : undefined;
  }

  /** A delivery whose attempt could not start within an attempt's time of becoming due: failed, no request sent. */
  function expire(w: Waiting, now: number): void {
    const p: Promise<void> = finish(w, {
      attemptId: w.row.attempt_count === 0 ? w.row.id : newAttemptId(),
      number: w.row.attempt_count + 1,
      attemptedAt: new Date(w.dueAt),
      durationMs: Math.max(0, now - w.dueAt),
      result: { statusCode: null, responseBody: null, error: notStartedError(busy(w.row.endpoint_id), opts.attemptTimeoutMs), delivered: false, unhealthy: false },
      outcome: 'failed',
    })
      .catch((err: unknown) => log.error({ deliveryId: w.row.id, err: (err as Error).message }, 'attempt could not be recorded; the lease will expire and it is retried'))
      .finally(() => running.delete(p));
    running.add(p);
  }

  /** Fails the waiting attempts and the due rows of saturated endpoints that have not started within an attempt's time. */
  async function expireOverdue(): Promise<void> {
    const now = Date.now();
    for (const [id, waiting] of ready) {
      const kept = waiting.filter((w) => {
        if (now - w.dueAt < opts.attemptTimeoutMs) return true;
        queued -= 1;
        expire(w, now);
        return false;
      });
      if (kept.length > 0) ready.set(id, kept);
      else ready.delete(id);
    }
    const full = saturated();
    if (full.length === 0) return;
    const token = randomUUID();
    const rows = await claimOverdue(opts.db, { endpoints: full, overdueMs: opts.attemptTimeoutMs, limit: EXPIRE_BATCH, leaseMs, token });
    for (const row of rows) expire({ row, token, dueAt: row.due_at.getTime() }, Date.now());
  }

  async function attempt(w: Waiting, requestDone: (answered: boolean) => void): Promise<void> {
    const row = w.row;
    let endpoint;
    try {
      endpoint = await endpointFor(row);
    } catch (err) {
      log.warn({ deliveryId: row.id, endpointId: row.endpoint_id, err: (err as Error).message }, 'webhook service unavailable; attempt postponed');
      await giveBack(w, new Date(Date.now() + DEPENDENCY_RETRY_MS));
      return;
    }
    const number = row.attempt_count + 1;
    // The first attempt carries the delivery's own id: what redeliver and test answer is then
    // the X-Service-Delivery the receiver gets and the log shows.
    const attemptId = number === 1 ? row.id : newAttemptId();
    const attemptedAt = new Date();
    if (!endpoint) {
      await finish(w, {
        attemptId,
        number,
        attemptedAt,
        durationMs: 0,
        result: { statusCode: null, responseBody: null, error: 'endpoint deleted, disabled or no longer subscribed to this event; delivery cancelled', delivered: false, unhealthy: false },
        outcome: 'cancelled',
      });
      return;
    }
    const deadline = deadlines.start();
    const started = performance.now();
    let result: PostResult;
    let outcome: AttemptOutcome;
    try {
      const { url, target } = targets.kept(row.url) ?? (await targets.of(row.url, deadline));
      if (!target.ok) {
        result = { statusCode: null, responseBody: null, error: target.reason, delivered: false, unhealthy: false };
        outcome = target.refused ? 'refused' : 'failed';
      } else {
        const body = row.bodyBytes ?? Buffer.from(row.body, 'utf8');
        const headers = deliveryHeaders({ keys: signingKeysOf(endpoint), eventType: row.event_type, envelopeId: row.event_id, attemptId, body });
        result = await opts.breakers.fire(row.endpoint_id, async () => {
          const r = await post(url, target, body, headers, { deadline, timeoutMs: opts.attemptTimeoutMs, agents });
          if (r.unhealthy) throw new UnhealthyResult(r);
          return r;
        });
        outcome = result.delivered ? 'delivered' : 'failed';
      }
    } catch (err) {
      const message = err instanceof BreakerOpen ? BREAKER_OPEN_ERROR : deadline.expired ? `timed out after ${opts.attemptTimeoutMs} ms` : (err as Error).message;
      result = { statusCode: null, responseBody: null, error: message, delivered: false, unhealthy: false };
      outcome = 'failed';
    } finally {
      const answered = !deadline.expired;
      deadline.clear();
      requestDone(answered);
    }
    // A failing endpoint is the one most likely to have been disabled or deleted meanwhile (5
    // failures disable it): the organisation's answers are fetched again in the background, so
    // its retry, due sooner than the cache expires, sees the change. Dropping them made every
    // healthy endpoint of the organisation wait for that call (a hanging neighbour's timeouts
    // then showed in their latency).
    if (outcome !== 'delivered') opts.endpoints.refresh(row.org_id);
    await finish(w, { attemptId, number, attemptedAt, durationMs: Math.round(performance.now() - started), result, outcome });
  }

  async function finish(
    { row, token, early }: Waiting,
    a: { attemptId: string; number: number; attemptedAt: Date; durationMs: number; result: PostResult; outcome: AttemptOutcome },
  ): Promise<void> {
    const step = a.outcome === 'cancelled' ? ({ kind: 'cancelled' } as const) : nextStep(a.result.delivered, a.number, opts.retrySchedule);
    const next = step.kind === 'retry' ? { status: 'pending' as const, retryInMs: step.waitMs } : { status: step.kind };
    const completion: AttemptCompletion = {
      token,
      orgId: row.org_id,
      attempt: {
        attemptId: a.attemptId,
        deliveryId: row.id,
        eventId: row.event_id,
        eventType: row.event_type,
        endpointId: row.endpoint_id,
        attempt: a.number,
        attemptedAt: a.attemptedAt,
        statusCode: a.result.statusCode,
        durationMs: a.durationMs,
        responseBody: a.result.responseBody,
        error: a.result.error,
        outcome: a.outcome,
        trigger: row.trigger,
      },
      next,
      // A test never counts towards disabling: there is no outcome to report.
      ...(row.trigger === 'test' ? { reported: true } : {}),
    };
    // A delivery the fan-out started before its row was stored is recorded by the fan-out's
    // transaction when it ended before that, else once its row is stored. Never stored (its
    // event is handled again, or was fanned out before): the attempt is logged, and there is no
    // delivery to move on and no outcome to report (the redelivery makes its own).
    let how: Awaited<ReturnType<EarlyRecord['finished']>> = 'record';
    if (early) {
      awaitingFanout += 1;
      try {
        how = await early.finished(completion);
      } finally {
        awaitingFanout -= 1;
      }
    }
    const rowStored = how !== 'unstored';
    const held = how === 'recorded' || (await recorder.add(rowStored ? completion : { ...completion, next: { status: 'cancelled' } }));
    opts.metrics.attempts.inc({ event_type: row.event_type, outcome: a.outcome });
    if (a.outcome !== 'cancelled') opts.metrics.attemptDuration.observe(a.durationMs / 1000);
    if (step.kind !== 'retry' && rowStored && held) opts.metrics.deliveries.inc({ event_type: row.event_type, outcome: step.kind });
    // The wake is what matters: the loop times its next look by the earliest due row, and this
    // one is due sooner than the lease it had.
    if (step.kind === 'retry' && rowStored && held) wakeClaims();
    // Built only when they are written: with info off (as in the benchmark, and wherever
    // per-attempt lines are not wanted) every attempt built them for nothing.
    const level = !held && rowStored ? 'warn' : 'info';
    if (!log.isLevelEnabled(level)) return;
    const fields = { deliveryId: row.id, eventId: row.event_id, endpointId: row.endpoint_id, attempt: a.number, attemptId: a.attemptId, outcome: a.outcome, statusCode: a.result.statusCode, durationMs: a.durationMs };
    if (!rowStored) log.info(fields, 'attempt logged; its delivery was not stored (its event is handled again, or was before)');
    else if (!held) log.warn(fields, 'lease lost during the attempt; attempt logged, delivery left to its new owner');
    else if (step.kind === 'retry') log.info({ ...fields, error: a.result.error, retryInMs: step.waitMs }, 'attempt failed; retry scheduled');
    else log.info({ ...fields, error: a.result.error, final: step.kind }, 'delivery final');
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
          const exclude = saturated();
          const roomOf = new Map<string, number>();
          for (const id of known()) roomOf.set(id, Math.max(0, 2 * capacity(id) - held(id)));
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
          for (const row of claimed) enqueue(row, token, row.due_at.getTime());
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
            const dueInMs = await msUntilNextDue(opts.db, saturated());
            if (dueInMs !== undefined) waitMs = Math.min(opts.pollIntervalMs, Math.max(MIN_WAIT_MS, Math.ceil(dueInMs)));
          }
        }
        // Waiting attempts, or saturated endpoints' due rows, may run out of time before anything wakes the loop.
        if (queued > 0 || saturated().length > 0) waitMs = Math.min(waitMs, EXPIRE_EVERY_MS);
      } catch (err) {
        if (!stopping) log.warn({ err: (err as Error).message }, 'claiming deliveries failed; retrying');
      }
      if (!more && !stopping) await sleeper.wait(waitMs);
    }
    // Leased but never started: due again at once, for this or another replica.
    const unstarted = [...ready.values()].flat();
    ready.clear();
    queued = 0;
    await Promise.all(unstarted.map((w) => giveBack(w, new Date()).catch((err: unknown) => log.warn({ deliveryId: w.row.id, err: (err as Error).message }, 'could not give a waiting delivery back; its lease will expire'))));
    await Promise.all(running);
    await recorder.flushed();
  })();

  return {
    admit,
    reportFinals: reportedFirst,
    reserve,
    wake: wakeClaims,
    stalled: () => {
      const now = Date.now();
      return [...perEndpoint.keys()].filter((id) => isStalled(id, now)).length;
    },
    async stop() {
      stopping = true;
      sweepAdmissions();
      sleeper.wake();
      await loop;
      deadlines.close();
      await agents.close();
    },
  };
}
