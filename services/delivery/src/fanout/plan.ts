import type { ConsumedEvent } from '@preflight/bus';
import { decodeEvent, envelopesFor, kindOfSubject, kindOfType } from '@preflight/events';
import type { EndpointDirectory } from '../clients/endpoint-directory.ts';
import type { Endpoint } from '../clients/webhook-client.ts';
import { newDeliveryId } from '../domain/ids.ts';
import type { ClaimedDelivery, NewEnvelope } from '../storage/deliveries.ts';

/**
 * An event's public envelopes, each with the endpoints receiving it as the endpoint cache
 * answered when the event was received (the cache's own array, shared by every event of the
 * organisation within its TTL). Rows are made only as deliveries start or are stored
 * (`rowsOf`), so an event waiting in the consumer holds its envelopes, not a row per endpoint.
 */
export interface Plan {
  orgId: string;
  receivedAt: Date;
  parts: Array<{ envelope: NewEnvelope; endpoints: readonly Endpoint[] }>;
  /** Deliveries in all: endpoints summed over the envelopes. */
  size: number;
}

export type Route =
  | { kind: 'unknown' }
  | { kind: 'no-org'; eventKind: string }
  /** No public envelope: an event integrators never see. */
  | { kind: 'private' }
  | { kind: 'public'; orgId: string; envelopes: ReturnType<typeof envelopesFor> };

/** The organisation's endpoints receiving each of the route's envelopes (through the endpoint cache). */
export async function planOf(endpoints: Pick<EndpointDirectory, 'endpointsFor'>, eventId: string, route: Extract<Route, { kind: 'public' }>): Promise<Plan> {
  const plan: Plan = { orgId: route.orgId, receivedAt: new Date(), parts: [], size: 0 };
  for (const envelope of route.envelopes) {
    const receivers = await endpoints.endpointsFor(route.orgId, envelope.eventType);
    if (receivers.length === 0) continue;
    plan.parts.push({ envelope: { eventId, eventType: envelope.eventType, body: JSON.stringify(envelope) }, endpoints: receivers });
    plan.size += receivers.length;
  }
  return plan;
}

/** The plan's deliveries, one new row each (an envelope's bytes made once for all its rows). */
export function* rowsOf(plan: Plan): Generator<ClaimedDelivery> {
  for (const { envelope, endpoints } of plan.parts) {
    const bodyBytes = Buffer.from(envelope.body, 'utf8');
    for (const e of endpoints) {
      yield {
        id: newDeliveryId(),
        event_id: envelope.eventId,
        event_type: envelope.eventType,
        endpoint_id: e.id,
        org_id: plan.orgId,
        url: e.url,
        body: envelope.body,
        bodyBytes,
        attempt_count: 0,
        trigger: 'event',
        due_at: plan.receivedAt,
      };
    }
  }
}

/**
 * Routes by event object: the consumer hands the same object to `wants` and then to the
 * handler, so each event is decoded and its envelopes built once.
 */
const routes = new WeakMap<ConsumedEvent, Route>();

/** What an event becomes publicly (`envelopesFor`: envelope id = event id, so a redelivery or a retry builds the very same body), and for whom. */
export function routeOf(consumed: ConsumedEvent, subjectPrefix: string): Route {
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
