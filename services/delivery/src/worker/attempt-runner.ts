import { Batcher, type Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import { PinnedAgents } from '../attempt/agents.ts';
import { Deadlines } from '../attempt/deadlines.ts';
import { post, type PostResult } from '../attempt/post.ts';
import { Targets, type Resolver } from '../attempt/target.ts';
import type { EndpointDirectory } from '../clients/endpoint-directory.ts';
import type { Endpoint, WebhookClient } from '../clients/webhook-client.ts';
import { newAttemptId } from '../domain/ids.ts';
import { nextStep } from '../domain/schedule.ts';
import { deliveryHeaders, signable, signingKeysOf } from '../domain/signatures.ts';
import { BREAKER_OPEN_ERROR, notStartedError } from '../domain/unsent.ts';
import type { EarlyRecord } from '../fanout/early-start.ts';
import { recordAttempts, releaseLease, type AttemptCompletion, type ClaimedDelivery, type UnreportedOutcome } from '../storage/deliveries.ts';
import type { AttemptOutcome, DeliveryDatabase } from '../storage/schema.ts';
import { BreakerOpen, UnhealthyResult, type Breakers } from '@preflight/breakers';
import type { DeliveryMetrics } from './metrics.ts';

/**
 * A leased delivery waiting for a slot of its endpoint; `early` only for one the fan-out
 * started before its row was stored. `dueAt` (epoch ms): when its attempt became due; one
 * that has not started an attempt's time later fails without a request.
 */
export interface Waiting {
  row: ClaimedDelivery;
  token: string;
  dueAt: number;
  early: EarlyRecord | undefined;
}

/** Every `Waiting` is made here, with one shape: they pass through every hot function of the scheduler. */
export const waiting = (row: ClaimedDelivery, token: string, dueAt: number, early?: EarlyRecord): Waiting => ({ row, token, dueAt, early });

export interface AttemptRunnerOptions {
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
  /** How long a delivery whose endpoint cannot be signed (its secret's key is missing) waits before it is looked at again. */
  keyHoldMs: number;
  allowPrivate: boolean;
  resolve?: Resolver | undefined;
  /**
   * Reports final outcomes (delivered or failed) to the webhook service before their attempts
   * are recorded, so they are recorded as reported; a throw leaves them to the outcome reporter.
   */
  reportOutcomes: (finals: UnreportedOutcome[]) => Promise<void>;
  /** Called when a delivery became final but its outcome is still to be reported. */
  onUnreported: () => void;
  /** A retry was recorded: it is due sooner than the lease its row had. */
  onRetryRecorded: () => void;
  /** Whether a retry of the endpoint's is recorded parked (the endpoint is stalled). */
  parks: (endpointId: string) => boolean;
}

export interface AttemptRunner {
  /** One attempt: the endpoint looked up, the POST made (or refused), the result recorded. `requestDone` is called when the request is over. */
  run(w: Waiting, requestDone: (answered: boolean) => void): Promise<void>;
  /** Records an attempt that could not start within its time of becoming due: failed, no request sent. */
  unsent(w: Waiting, now: number, inFlight: number): Promise<void>;
  /** Gives a delivery back without using an attempt, once (and if) its row is stored. */
  giveBack(w: Waiting, until: Date): Promise<void>;
  /** Reports the final outcomes among these; answers them marked reported, or as they were when the report failed. */
  reportFinals(completions: AttemptCompletion[]): Promise<AttemptCompletion[]>;
  /** Early attempts that are over, waiting for their fan-out transaction. */
  awaitingFanout(): number;
  /** Waits for the attempts handed to the recorder to be written, then closes the connections. */
  close(): Promise<void>;
}

/** How long the webhook service may be unreachable before a claimed delivery is tried again. */
const DEPENDENCY_RETRY_MS = 2_000;
/** Attempts recorded per statement at most. */
export const RECORD_BATCH = 200;
/**
 * How long finished attempts gather before they are recorded (and their outcomes reported).
 * The receiver has its delivery already; only the log, the slot in `workers` and the lease
 * wait, and a steady flow is then recorded in batches large enough to share a statement and
 * an outcome call to the webhook service.
 */
const RECORD_LINGER_MS = 5;
/** The result of an attempt whose endpoint went away: no request. */
const CANCELLED: PostResult = {
  statusCode: null,
  responseBody: null,
  error: 'endpoint deleted, disabled or no longer subscribed to this event; delivery cancelled',
  delivered: false,
  unhealthy: false,
};
/** Claimed and handed-over rows are stored already. */
const STORED = Promise.resolve(true);

/**
 * Makes attempts: looks the endpoint up (cancelled when it is gone, disabled or unsubscribed),
 * checks and pins the target address, signs, POSTs through the endpoint's breaker (an open one
 * fails the attempt without a request), and records the result with the next step (retry,
 * final) in batches (group commit), final outcomes reported to the webhook service first.
 */
export function attemptRunner(opts: AttemptRunnerOptions): AttemptRunner {
  const log = opts.logger.child({ component: 'scheduler' });
  const agents = new PinnedAgents(opts.attemptTimeoutMs);
  const deadlines = new Deadlines(opts.attemptTimeoutMs);
  const targets = new Targets({ allowPrivate: opts.allowPrivate, resolve: opts.resolve });
  const recorder = new Batcher<AttemptCompletion, boolean>(async (items) => recordAttempts(opts.db, await reportedFirst(items)), RECORD_BATCH, RECORD_LINGER_MS);
  let awaitingFanout = 0;

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
  async function endpointFor(row: ClaimedDelivery): Promise<Endpoint | undefined> {
    if (row.trigger === 'event') {
      const cached = opts.endpoints.cachedEndpoint(row.org_id, row.event_type, row.endpoint_id);
      return cached ? cached.endpoint : await opts.endpoints.endpoint(row.org_id, row.event_type, row.endpoint_id);
    }
    const endpoint = await opts.webhooks.endpointById(row.endpoint_id);
    return endpoint && (endpoint.isEnabled || row.trigger === 'test') ? endpoint : undefined;
  }

  /**
   * The endpoint exists but its secret cannot be opened by the webhook service (an at-rest key
   * missing or wrong there): no attempt is made or used, the delivery stays pending and is
   * looked at again after `keyHoldMs`; it counts towards nothing (issue 22, finding 8).
   */
  async function holdForKey(w: Waiting): Promise<void> {
    const row = w.row;
    opts.metrics.heldForKey.inc({ trigger: row.trigger });
    log.warn({ deliveryId: row.id, eventId: row.event_id, endpointId: row.endpoint_id, retryInMs: opts.keyHoldMs }, "endpoint's secret cannot be decrypted by the webhook service; delivery held, no attempt made");
    // The key may come back before the cached answer expires: the next look then sees it.
    if (row.trigger === 'event') opts.endpoints.refresh(row.org_id);
    await giveBack(w, new Date(Date.now() + opts.keyHoldMs));
  }

  async function unsent(w: Waiting, now: number, inFlight: number): Promise<void> {
    // An endpoint disabled meanwhile (most likely by these very failures) cancels it instead;
    // the webhook service not answering leaves it failed.
    const found = await endpointFor(w.row).then((e) => ({ e }), () => undefined);
    if (found?.e && !signable(found.e)) return holdForKey(w);
    const gone = found !== undefined && found.e === undefined;
    const attempt = { attemptId: w.row.attempt_count === 0 ? w.row.id : newAttemptId(), number: w.row.attempt_count + 1, attemptedAt: new Date(w.dueAt) };
    if (gone) return finish(w, { ...attempt, durationMs: 0, result: CANCELLED, outcome: 'cancelled' });
    return finish(w, {
      ...attempt,
      durationMs: Math.max(0, now - w.dueAt),
      result: { statusCode: null, responseBody: null, error: notStartedError(inFlight, opts.attemptTimeoutMs), delivered: false, unhealthy: false },
      outcome: 'failed',
    });
  }

  async function run(w: Waiting, requestDone: (answered: boolean) => void): Promise<void> {
    const row = w.row;
    let endpoint;
    try {
      // An event's endpoint is usually at hand in the cache: no promise for it.
      const cached = row.trigger === 'event' ? opts.endpoints.cachedEndpoint(row.org_id, row.event_type, row.endpoint_id) : undefined;
      endpoint = cached ? cached.endpoint : await endpointFor(row);
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
    if (endpoint && !signable(endpoint)) {
      await holdForKey(w);
      return;
    }
    if (!endpoint) {
      await finish(w, {
        attemptId,
        number,
        attemptedAt,
        durationMs: 0,
        result: CANCELLED,
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
          if (r.unhealthy) throw UnhealthyResult.of(r);
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
    // its retry, due sooner than the cache expires, sees the change, while the organisation's
    // healthy endpoints keep the answers they have and never wait for that call.
    if (outcome !== 'delivered' && result.error !== BREAKER_OPEN_ERROR) opts.endpoints.refresh(row.org_id);
    await finish(w, { attemptId, number, attemptedAt, durationMs: Math.round(performance.now() - started), result, outcome });
  }

  async function finish(
    { row, token, early }: Waiting,
    a: { attemptId: string; number: number; attemptedAt: Date; durationMs: number; result: PostResult; outcome: AttemptOutcome },
  ): Promise<void> {
    const step = a.outcome === 'cancelled' ? ({ kind: 'cancelled' } as const) : nextStep(a.result.delivered, a.number, opts.retrySchedule);
    const next = step.kind === 'retry' ? { status: opts.parks(row.endpoint_id) ? ('parked' as const) : ('pending' as const), retryInMs: step.waitMs } : { status: step.kind };
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
      reported: row.trigger === 'test' ? true : undefined,
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
    if (step.kind === 'retry' && rowStored && held) opts.onRetryRecorded();
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

  return {
    run,
    unsent,
    giveBack,
    reportFinals: reportedFirst,
    awaitingFanout: () => awaitingFanout,
    async close() {
      await recorder.flushed();
      deadlines.close();
      await agents.close();
    },
  };
}
