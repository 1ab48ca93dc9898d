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
 * Where fanned-out deliveries go in this replica: `reserve` takes slots of the local scheduler,
 * one per endpoint id given (an id may come several times), for those it has room for (none
 * while it is full or stopping), `accept` hands it the rows
 * inserted under the reservation once they are committed, `release` gives the slots back
 * when the transaction rolled back.
 */
export interface Handoff {
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

/**
 * For the events of a consumer batch (one transaction), each domain event: its public envelopes (`routeOf`), the organisation's enabled endpoints that
 * receive each one (the webhook service's internal API, through the endpoint cache: an event
 * of an organisation without endpoints costs no call within the TTL), the envelope's body
 * bytes stored once and one pending `deliveries` row per (event, endpoint). Rows the local
 * scheduler has room for are inserted leased to it and handed over at commit, so a new
 * delivery costs no claim; the rest are due at once for whichever replica claims them. Runs
 * in the consumer's transaction, after its inbox row: a redelivered event fans out nothing
 * twice, and a failure (the webhook service unreachable, say) rolls everything back for a
 * later redelivery. Secrets are not stored: each attempt looks the endpoint up again.
 */
export function fanoutHandler(opts: {
  subjectPrefix: string;
  schema: string;
  endpoints: Pick<EndpointDirectory, 'endpointsFor'>;
  handoff: Handoff;
  leaseMs: number;
  logger: Logger;
}): BatchEventHandler<DeliveryDatabase> {
  const log = opts.logger.child({ component: 'fanout' });
  const channel = deliveryChannel(opts.schema);
  return async (batch, trx, tx) => {
    const envelopes: NewEnvelope[] = [];
    const rows: Array<NewDelivery & { body: string }> = [];
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
      for (const envelope of route.envelopes) {
        const endpoints = await opts.endpoints.endpointsFor(route.orgId, envelope.eventType);
        if (endpoints.length === 0) continue;
        const body = JSON.stringify(envelope);
        envelopes.push({ eventId: consumed.id, eventType: envelope.eventType, body });
        for (const e of endpoints) {
          rows.push({ id: newDeliveryId(), eventId: consumed.id, eventType: envelope.eventType, orgId: route.orgId, endpointId: e.id, url: e.url, leased: false, dueAt: undefined, body });
        }
      }
    }
    if (rows.length === 0) return;
    const reservation = opts.handoff.reserve(rows.map((r) => r.endpointId));
    // Registered before the insert, so a statement that fails gives the slots back too.
    tx.afterRollback(() => reservation.release());
    rows.forEach((r, i) => {
      r.leased = reservation.granted[i]!;
      r.dueAt = reservation.dueAt[i];
    });
    await insertDeliveries(trx, { envelopes, rows, leaseMs: opts.leaseMs, token: reservation.token, channel });
    tx.afterCommit(() =>
      reservation.accept(
        rows
          .filter((r) => r.leased)
          .map((r) => ({ id: r.id, event_id: r.eventId, event_type: r.eventType, endpoint_id: r.endpointId, org_id: r.orgId, url: r.url, body: r.body, attempt_count: 0 })),
      ),
    );
    log.debug({ events: batch.length, deliveries: rows.length }, 'events fanned out');
  };
}

/**
 * The consumer's `wants`: false only for an event that certainly fans out to nobody (no public
 * envelope, or no enabled endpoint of its organisation receives any of them), which is then
 * acked without a transaction. Most events of most organisations are such events, and each
 * would otherwise cost an inbox row and a commit. Events the handler has something to log
 * about go to the handler.
 */
export function fanoutWants(opts: { subjectPrefix: string; endpoints: Pick<EndpointDirectory, 'endpointsFor'> }): (consumed: ConsumedEvent) => Promise<boolean> {
  return async (consumed) => {
    const route = routeOf(consumed, opts.subjectPrefix);
    if (route.kind === 'private') return false;
    if (route.kind !== 'public') return true;
    for (const envelope of route.envelopes) {
      if ((await opts.endpoints.endpointsFor(route.orgId, envelope.eventType)).length > 0) return true;
    }
    return false;
  };
}

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
