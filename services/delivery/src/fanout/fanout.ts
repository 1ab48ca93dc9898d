import type { BatchEventHandler, ConsumedEvent, TransactionHooks } from '@preflight/bus';
import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import type { EndpointDirectory } from '../clients/endpoint-directory.ts';
import { storeFanout, type AttemptCompletion, type ClaimedDelivery, type NewDelivery, type NewEnvelope, type WrittenAttempt } from '../storage/deliveries.ts';
import { EarlyEvent, type EarlyDelivery, type EarlyRecord } from './early-start.ts';
import { planOf, routeOf, rowsOf, type Plan } from './plan.ts';
import type { DeliveryDatabase } from '../storage/schema.ts';

/** The durable consumer of every domain event; also labels its inbox rows and metrics. */
export const FANOUT_CONSUMER = 'delivery-fanout';

/** The NOTIFY channel the scheduler listens on for new deliveries. */
export const deliveryChannel = (schema: string): string => `${schema}_delivery`;

/**
 * Where fanned-out deliveries go in this replica. `admit` hands the local scheduler new
 * deliveries before their rows are stored (see `fanout`), `reserve` takes slots for rows
 * inserted leased and handed over at commit. Both grant, per row, only what the scheduler has
 * room for by the bounds of a claim (none while it is full or stopping, or for an endpoint
 * that is stalled).
 */
export interface Handoff {
  /**
   * Takes the rows it has room for, now or (in order, per endpoint) within `waitMs`; most
   * start at once. Each row's `early` says how its attempt is recorded. `taken` settles when
   * every row is taken or refused; taken rows are stored leased under `token`.
   */
  admit(rows: readonly ClaimedDelivery[], early: readonly EarlyRecord[], waitMs: number): { token: string; taken: Promise<boolean[]> };
  /** Reports the final outcomes among these to the webhook service; answers them marked reported, or as they were when the report failed. */
  reportFinals(completions: AttemptCompletion[]): Promise<AttemptCompletion[]>;
  /** One slot per endpoint id given (an id may come several times), for the rows inserted leased. */
  reserve(endpointIds: readonly string[]): Reservation;
}

export interface Reservation {
  /** The lease token the reserved rows are inserted under. */
  token: string;
  /** Per slot asked for (one per endpoint id given, in order): whether it was granted; a row not granted is due at once. */
  granted: readonly boolean[];
  /**
   * Per slot asked for: a row not granted whose endpoint is stalled here is stored parked: out
   * of the due index every claim walks and without a NOTIFY (each notifying commit is
   * serialised by Postgres), until the endpoint answers again or its attempt's time is over.
   */
  parked: readonly boolean[];
  accept(rows: ClaimedDelivery[]): void;
  release(): void;
}

/** Deliveries of an event started before its transaction (`onReceived`), until it commits. */
interface Started {
  plan: Plan;
  /** One per delivery of the plan, in its order. */
  rows: ClaimedDelivery[];
  early: EarlyEvent;
  token: string;
  /** Per row of the plan: whether the scheduler took it (settled before the transaction runs). */
  taken: readonly boolean[];
}

/**
 * How long a new delivery waits for room at its endpoint (which is at its bound) before it is
 * stored for a claim instead: as long as an endpoint may go without ending a request before
 * it counts as stalled (the scheduler's STALL_MS), so a busy endpoint's backlog waits in memory
 * and JetStream, and a hanging one's goes to the table.
 */
const ADMIT_WAIT_MS = 1_000;
/**
 * How long an event's transaction waits for the attempts started for it to end: those that
 * ended are written by it (one attempt row, and no delivery row unless something is left to
 * do); those still running are stored leased and recorded when they end.
 */
const FINISH_WAIT_MS = 250;
/**
 * Deliveries stored per statement at most: an event to thousands of endpoints, or a batch of
 * many such events, is written in several statements of one transaction, so the rows made for
 * it at once stay this many whatever the endpoint count.
 */
export const STORE_CHUNK = 1_000;

export interface Fanout {
  /**
   * The consumer's `wants`: false only for an event that certainly fans out to nobody (no
   * public envelope, or no enabled endpoint of its organisation receives any of them), which
   * is then acked without a transaction. Most events of most organisations are such events,
   * and each would otherwise cost an inbox row and a commit. Events the handler has something
   * to log about go to the handler, and so do events with attempts started early (their rows
   * are stored even if the endpoint went away meanwhile: its next attempt is then cancelled).
   */
  wants: (consumed: ConsumedEvent) => Promise<boolean>;
  /** The consumer's batchHandler: stores the deliveries, in the consumer's transaction. */
  handler: BatchEventHandler<DeliveryDatabase>;
  /** The consumer's onReceived: starts the attempts the scheduler has room for, before any commit. */
  onReceived: (consumed: ConsumedEvent) => Promise<void>;
  /** The consumer's onSettled: what was started early and never stored is let go. */
  onSettled: (consumed: ConsumedEvent) => void;
  /** Deliveries of events received and started early whose transaction has not ended yet. */
  unstored: () => number;
}

/**
 * The fan-out of every domain event: its public envelopes (`routeOf`), the organisation's
 * enabled endpoints that receive each one (the webhook service's internal API, through the
 * endpoint cache: an event of an organisation without endpoints costs no call within the TTL),
 * the envelope's body bytes stored once and one pending `deliveries` row per (event, endpoint).
 *
 * Attempts first, rows after. As soon as an event is received (`onReceived`, before its
 * transaction waits for a turn), its plan is made (the endpoints of that moment) and its
 * deliveries go to the local scheduler: each starts at once where its endpoint has room, or
 * waits in memory for room up to ADMIT_WAIT_MS. The event then waits up to FINISH_WAIT_MS for
 * those attempts, and its transaction (the inbox row, one statement, one commit) writes the
 * attempts that ended, with a delivery row only for what is left to do, and stores the ones
 * still running leased to this replica (their records wait for that commit). A Postgres
 * commit that stalls (a checkpoint's WAL flush took 0.7 s here) thus delays the log and the
 * ack, not the receivers. Only first deliveries of an event start early: a redelivered event
 * may have been fanned out already, and the inbox says so only in its transaction. A process
 * that dies before the commit leaves its event unacked: it is redelivered and sent again (at
 * least once, the same envelope id). If the transaction rolls back, the consumer handles the
 * event again in a transaction of its own, which stores the same attempts and rows; an event
 * that is then nak'ed or was a duplicate settles its early attempts as not stored: they are
 * logged, with no delivery to move on, and the redelivery sends them again. While the last
 * fan-out transaction failed (Postgres down, say), nothing starts early.
 *
 * Rows there was no room for early go through `reserve` in the transaction: inserted leased
 * and handed over at commit if the scheduler has room then, otherwise due for any replica's
 * claim. A failure (the webhook service unreachable, say) rolls everything back for a later
 * redelivery. Secrets are not stored: each attempt looks the endpoint up again.
 */
export function fanout(opts: {
  subjectPrefix: string;
  schema: string;
  endpoints: Pick<EndpointDirectory, 'endpointsFor'>;
  handoff: Handoff;
  leaseMs: number;
  /** Deliveries held in memory before their rows are stored, at most (DELIVERY_MAX_UNSTORED): an event that would go beyond is stored first. */
  maxUnstored: number;
  logger: Logger;
}): Fanout {
  const log = opts.logger.child({ component: 'fanout' });
  const channel = deliveryChannel(opts.schema);
  const started = new WeakMap<ConsumedEvent, Started>();
  /**
   * Each event's plan as made when it was received: `wants` and the handler decide by it, so an
   * event's endpoints are those of the moment it arrived, however long its batch gathers (an
   * endpoint created meanwhile does not receive an event published before it).
   */
  const planned = new WeakMap<ConsumedEvent, Plan>();
  let unstored = 0;
  /** Started early, then stored or let go: counted once, whichever comes first. */
  const settle = (s: Started, stored: boolean) => {
    if (s.early.settled === undefined) unstored -= s.rows.length;
    if (stored) s.early.committed();
    else s.early.letGo();
  };
  let lastTransactionFailed = false;

  const onReceived = async (consumed: ConsumedEvent): Promise<void> => {
    if (consumed.redelivered || lastTransactionFailed) return;
    const route = routeOf(consumed, opts.subjectPrefix);
    if (route.kind !== 'public') return;
    let plan: Plan;
    try {
      plan = await planOf(opts.endpoints, consumed.id, route);
    } catch (err) {
      // The handler asks again, and rolls back if it still cannot.
      log.debug({ eventId: consumed.id, err: (err as Error).message }, 'endpoints unavailable; the event waits for its transaction');
      return;
    }
    planned.set(consumed, plan);
    // Nothing to send, or more than may be held unstored: its rows are stored first, and
    // claimed like any due row (the bound holds whatever the endpoint count and backlog).
    if (plan.size === 0 || unstored + plan.size > opts.maxUnstored) return;
    const rows = [...rowsOf(plan)];
    const early = new EarlyEvent(rows.length);
    const { token, taken } = opts.handoff.admit(rows, early.deliveries, ADMIT_WAIT_MS);
    // Known before anything is awaited: `wants` and the handler find it by the event.
    const s: Started = { plan, rows, early, token, taken: [] };
    started.set(consumed, s);
    unstored += rows.length;
    s.taken = await taken;
    if (!s.taken.some(Boolean)) {
      started.delete(consumed);
      settle(s, false);
      return;
    }
    await early.attemptsOver(s.taken, FINISH_WAIT_MS);
  };

  const onSettled = (consumed: ConsumedEvent): void => {
    const s = started.get(consumed);
    if (!s) return;
    started.delete(consumed);
    settle(s, false);
  };

  const handler: BatchEventHandler<DeliveryDatabase> = async (batch, trx, tx) => {
    tx.afterCommit(() => (lastTransactionFailed = false));
    tx.afterRollback(() => (lastTransactionFailed = true));
    const envelopes: NewEnvelope[] = [];
    const early: NewDelivery[] = [];
    const writing: Array<{ delivery: EarlyDelivery; url: string }> = [];
    /** Rows the scheduler did not take early; events started early only (the others' rows are made as they are stored). */
    const notTaken: ClaimedDelivery[] = [];
    const unstarted: Plan[] = [];
    const stores: Array<{ consumed: ConsumedEvent; s: Started }> = [];
    for (const consumed of batch) {
      const route = routeOf(consumed, opts.subjectPrefix);
      if (route.kind === 'unknown') {
        // A kind this build does not know (a newer producer): nothing it could map publicly.
        log.warn({ eventId: consumed.id, subject: consumed.subject, type: consumed.type }, 'unknown domain event; not delivered');
        continue;
      }
      if (route.kind === 'no-org') {
        log.error({ eventId: consumed.id, kind: route.eventKind }, 'domain event without an organisation; not delivered');
        continue;
      }
      if (route.kind === 'private') continue;
      const s = started.get(consumed);
      const plan = s?.plan ?? planned.get(consumed) ?? (await planOf(opts.endpoints, consumed.id, route));
      for (const part of plan.parts) envelopes.push(part.envelope);
      if (!s) {
        if (plan.size > 0) unstarted.push(plan);
        continue;
      }
      stores.push({ consumed, s });
      s.rows.forEach((row, i) => {
        if (!s.taken[i]) return notTaken.push(row);
        const d = s.early.deliveries[i]!;
        if (d.take() === 'write') writing.push({ delivery: d, url: row.url });
        else early.push({ ...newDelivery(row), leaseToken: s.token });
      });
    }
    if (early.length === 0 && writing.length === 0 && notTaken.length === 0 && unstarted.length === 0) return;
    // Final outcomes are reported before they are written as done (as the scheduler's records
    // do); a batch that rolls back and runs again does not report them twice.
    const unreported = writing.filter((w) => !w.delivery.completion!.reported);
    if (unreported.length > 0) {
      const reported = await opts.handoff.reportFinals(unreported.map((w) => w.delivery.completion!));
      unreported.forEach((w, i) => (w.delivery.completion = reported[i]!));
    }
    const written: WrittenAttempt[] = writing.map((w) => ({ completion: w.delivery.completion!, url: w.url }));
    tx.afterCommit(() => {
      for (const { consumed, s } of stores) {
        started.delete(consumed);
        settle(s, true);
      }
    });
    // The first statement carries the envelopes and what was started early (bounded by
    // maxUnstored); rows nothing started follow, STORE_CHUNK at a time.
    let first: { envelopes: NewEnvelope[]; early: NewDelivery[]; written: WrittenAttempt[] } | undefined = { envelopes, early, written };
    const store = async (later: ClaimedDelivery[]) => {
      await storeLater(trx, tx, later, first ?? { envelopes: [], early: [], written: [] });
      first = undefined;
    };
    let chunk = notTaken;
    for (const plan of unstarted) {
      for (const row of rowsOf(plan)) {
        if (chunk.length >= STORE_CHUNK) {
          await store(chunk);
          chunk = [];
        }
        chunk.push(row);
      }
    }
    await store(chunk);
    log.debug({ events: batch.length, attemptsWritten: writing.length, startedEarly: early.length + writing.length }, 'events fanned out');
  };

  /**
   * Stores rows nothing started (and with them `also`) in one statement: each offered to the
   * scheduler (`reserve`), inserted leased and handed over at commit if it has room, parked
   * when its endpoint is stalled here, otherwise due at once.
   */
  async function storeLater(trx: Kysely<DeliveryDatabase>, tx: TransactionHooks, later: ClaimedDelivery[], also: { envelopes: NewEnvelope[]; early: NewDelivery[]; written: WrittenAttempt[] }): Promise<void> {
    const reservation = opts.handoff.reserve(later.map((row) => row.endpoint_id));
    // Registered before the insert, so a statement that fails gives the slots back too.
    tx.afterRollback(() => reservation.release());
    const rows = later.map((row, i): NewDelivery => {
      const d = newDelivery(row);
      if (reservation.granted[i]) d.leaseToken = reservation.token;
      else if (reservation.parked[i]) d.parked = true;
      return d;
    });
    await storeFanout(trx, { envelopes: also.envelopes, rows: also.early.length > 0 ? [...also.early, ...rows] : rows, written: also.written, leaseMs: opts.leaseMs, channel });
    const accepted = later.filter((_, i) => reservation.granted[i]);
    tx.afterCommit(() => reservation.accept(accepted));
  }

  const wants = async (consumed: ConsumedEvent): Promise<boolean> => {
    if (started.has(consumed)) return true;
    const plan = planned.get(consumed);
    if (plan) return plan.size > 0;
    const route = routeOf(consumed, opts.subjectPrefix);
    if (route.kind === 'private') return false;
    if (route.kind !== 'public') return true;
    for (const envelope of route.envelopes) {
      if ((await opts.endpoints.endpointsFor(route.orgId, envelope.eventType)).length > 0) return true;
    }
    return false;
  };

  return { wants, handler, onReceived, onSettled, unstored: () => unstored };
}

const newDelivery = (row: ClaimedDelivery): NewDelivery => ({
  id: row.id,
  eventId: row.event_id,
  eventType: row.event_type,
  orgId: row.org_id,
  endpointId: row.endpoint_id,
  url: row.url,
  leaseToken: undefined,
});
