import type { BatchEventHandler, ConsumedEvent } from '@preflight/bus';
import { decodeEvent, envelopesFor, kindOfSubject, kindOfType } from '@preflight/events';
import type { Logger } from '@preflight/log';
import type { EndpointDirectory } from '../clients/endpoint-directory.ts';
import { newDeliveryId } from '../domain/ids.ts';
import { insertDeliveries, type ClaimedDelivery, type NewDelivery, type NewEnvelope } from '../storage/deliveries.ts';
import type { DeliveryDatabase } from '../storage/schema.ts';

/** The durable consumer of every domain event; also labels its inbox rows and metrics. */
export const FANOUT_CONSUMER = 'delivery-fanout';

/** The NOTIFY channel the scheduler listens on for new deliveries. */
export const deliveryChannel = (schema: string): string => `${schema}_delivery`;

/**
 * Where fanned-out deliveries go in this replica. `startNow` hands the local scheduler new
 * deliveries before their rows are stored (see `fanout`), `reserve` takes slots for rows
 * inserted leased and handed over at commit. Both grant, per row, only what the scheduler has
 * room for by the bounds of a claim (none while it is full or stopping, or for an endpoint
 * whose breaker is open).
 */
export interface Handoff {
  /**
   * Starts attempts for the rows it has room for, at once; `stored` settles true once their
   * rows are committed (leased under the token answered), false when they never will be
   * (their event was fanned out before, or is handled again later): each attempt's database
   * writes wait for it.
   */
  startNow(rows: readonly ClaimedDelivery[], stored: Promise<boolean>): { token: string; taken: readonly boolean[] };
  /** One slot per endpoint id given (an id may come several times), for the rows inserted leased. */
  reserve(endpointIds: readonly string[]): Reservation;
}

export interface Reservation {
  /** The lease token the reserved rows are inserted under. */
  token: string;
  /** Per slot asked for (one per endpoint id given, in order): whether it was granted. */
  granted: readonly boolean[];
  /**
   * Per slot asked for: when a row that was not granted is first due. Undefined: at once (the
   * claim loops are woken); a time: its endpoint takes no attempt here before then (breaker
   * open, or stalled), so the row waits, and wakes nobody, until that time.
   */
  dueAt: readonly (Date | undefined)[];
  accept(rows: ClaimedDelivery[]): void;
  release(): void;
}

/** An event's envelopes and one delivery per (envelope, endpoint receiving it). */
interface Plan {
  orgId: string;
  envelopes: NewEnvelope[];
  rows: ClaimedDelivery[];
}

/** Deliveries of an event started before its transaction (`onReceived`), until it commits. */
interface Started {
  plan: Plan;
  token: string;
  taken: readonly boolean[];
  stored: (ok: boolean) => void;
}

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
}

/**
 * The fan-out of every domain event: its public envelopes (`routeOf`), the organisation's
 * enabled endpoints that receive each one (the webhook service's internal API, through the
 * endpoint cache: an event of an organisation without endpoints costs no call within the TTL),
 * the envelope's body bytes stored once and one pending `deliveries` row per (event, endpoint).
 *
 * Attempts do not wait for that row's commit. As soon as an event is received (`onReceived`,
 * before its transaction waits for a turn), the deliveries the local scheduler has room for
 * start; the consumer's transaction then stores them leased to it (the inbox row, envelope and
 * rows in one commit), and each attempt's record waits for that commit. A Postgres commit that
 * stalls (a checkpoint's WAL flush took 0.7 s here) thus delays the log and the ack, not the
 * receivers. Only first deliveries of an event start early: a redelivered event may have been
 * fanned out already, and the inbox says so only in its transaction. A process that dies
 * before the commit leaves its event unacked: it is redelivered and sent again (at least
 * once, the same envelope id). If the transaction rolls back, the consumer handles the event
 * again in a transaction of its own, which stores the same rows; an event that is then nak'ed
 * or was a duplicate settles its early attempts as not stored: they are logged, with no
 * delivery to move on, and the redelivery sends them again. While the last fan-out
 * transaction failed (Postgres down, say), nothing starts early.
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
  logger: Logger;
}): Fanout {
  const log = opts.logger.child({ component: 'fanout' });
  const channel = deliveryChannel(opts.schema);
  const started = new WeakMap<ConsumedEvent, Started>();
  let lastTransactionFailed = false;

  async function planOf(consumed: ConsumedEvent, route: Extract<Route, { kind: 'public' }>): Promise<Plan> {
    const plan: Plan = { orgId: route.orgId, envelopes: [], rows: [] };
    for (const envelope of route.envelopes) {
      const endpoints = await opts.endpoints.endpointsFor(route.orgId, envelope.eventType);
      if (endpoints.length === 0) continue;
      const body = JSON.stringify(envelope);
      plan.envelopes.push({ eventId: consumed.id, eventType: envelope.eventType, body });
      for (const e of endpoints) {
        plan.rows.push({ id: newDeliveryId(), event_id: consumed.id, event_type: envelope.eventType, endpoint_id: e.id, org_id: route.orgId, url: e.url, body, attempt_count: 0 });
      }
    }
    return plan;
  }

  const onReceived = async (consumed: ConsumedEvent): Promise<void> => {
    if (consumed.redelivered || lastTransactionFailed) return;
    const route = routeOf(consumed, opts.subjectPrefix);
    if (route.kind !== 'public') return;
    let plan: Plan;
    try {
      plan = await planOf(consumed, route);
    } catch (err) {
      // The handler asks again, and rolls back if it still cannot.
      log.debug({ eventId: consumed.id, err: (err as Error).message }, 'endpoints unavailable; the event waits for its transaction');
      return;
    }
    if (plan.rows.length === 0) return;
    let stored!: (ok: boolean) => void;
    const storedPromise = new Promise<boolean>((resolve) => (stored = resolve));
    const { token, taken } = opts.handoff.startNow(plan.rows, storedPromise);
    if (!taken.some(Boolean)) return;
    started.set(consumed, { plan, token, taken, stored });
  };

  const onSettled = (consumed: ConsumedEvent): void => {
    const s = started.get(consumed);
    if (!s) return;
    started.delete(consumed);
    s.stored(false);
  };

  const handler: BatchEventHandler<DeliveryDatabase> = async (batch, trx, tx) => {
    tx.afterCommit(() => (lastTransactionFailed = false));
    tx.afterRollback(() => (lastTransactionFailed = true));
    const envelopes: NewEnvelope[] = [];
    const early: NewDelivery[] = [];
    const later: Array<{ row: ClaimedDelivery; delivery: NewDelivery }> = [];
    const stores: Started[] = [];
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
      const plan = s?.plan ?? (await planOf(consumed, route));
      if (s) stores.push(s);
      envelopes.push(...plan.envelopes);
      plan.rows.forEach((row, i) => {
        const delivery = newDelivery(row);
        if (s?.taken[i]) early.push({ ...delivery, leaseToken: s.token });
        else later.push({ row, delivery });
      });
    }
    if (early.length === 0 && later.length === 0) return;
    const reservation = opts.handoff.reserve(later.map((l) => l.row.endpoint_id));
    // Registered before the insert, so a statement that fails gives the slots back too.
    tx.afterRollback(() => reservation.release());
    later.forEach((l, i) => {
      if (reservation.granted[i]) l.delivery.leaseToken = reservation.token;
      l.delivery.dueAt = reservation.dueAt[i];
    });
    await insertDeliveries(trx, { envelopes, rows: [...early, ...later.map((l) => l.delivery)], leaseMs: opts.leaseMs, channel });
    tx.afterCommit(() => {
      for (const s of stores) s.stored(true);
      reservation.accept(later.filter((_, i) => reservation.granted[i]).map((l) => l.row));
    });
    log.debug({ events: batch.length, deliveries: early.length + later.length, startedEarly: early.length }, 'events fanned out');
  };

  const wants = async (consumed: ConsumedEvent): Promise<boolean> => {
    if (started.has(consumed)) return true;
    const route = routeOf(consumed, opts.subjectPrefix);
    if (route.kind === 'private') return false;
    if (route.kind !== 'public') return true;
    for (const envelope of route.envelopes) {
      if ((await opts.endpoints.endpointsFor(route.orgId, envelope.eventType)).length > 0) return true;
    }
    return false;
  };

  return { wants, handler, onReceived, onSettled };
}

const newDelivery = (row: ClaimedDelivery): NewDelivery => ({
  id: row.id,
  eventId: row.event_id,
  eventType: row.event_type,
  orgId: row.org_id,
  endpointId: row.endpoint_id,
  url: row.url,
  leaseToken: undefined,
  dueAt: undefined,
});

type Route =
  | { kind: 'unknown' }
  | { kind: 'no-org'; eventKind: string }
  /** No public envelope: an event integrators never see. */
  | { kind: 'private' }
  | { kind: 'public'; orgId: string; envelopes: ReturnType<typeof envelopesFor> };

/**
 * Routes by event object: the consumer hands the same object to `wants` and then to the
 * handler, so each event is decoded and its envelopes built once.
 */
const routes = new WeakMap<ConsumedEvent, Route>();

/** What an event becomes publicly (`envelopesFor`: envelope id = event id, so a redelivery or a retry builds the very same body), and for whom. */
function routeOf(consumed: ConsumedEvent, subjectPrefix: string): Route {
  let route = routes.get(consumed);
  if (!route) {
    route = decodeRoute(consumed, subjectPrefix);
    routes.set(consumed, route);
  }
  return route;
}

function decodeRoute(consumed: ConsumedEvent, subjectPrefix: string): Route {
  const kind = (consumed.type && kindOfType(consumed.type)) || kindOfSubject(consumed.subject, subjectPrefix);
  if (!kind) return { kind: 'unknown' };
  const event = decodeEvent(kind, consumed.payload);
  const envelopes = envelopesFor(consumed.id, event);
  if (envelopes.length === 0) return { kind: 'private' };
  const orgId = consumed.orgId ?? event.message.orgId;
  if (!orgId) return { kind: 'no-org', eventKind: kind };
  return { kind: 'public', orgId, envelopes };
}
