import { randomUUID } from 'node:crypto';
import type { ConsumedEvent, EventHandler } from '@preflight/bus';
import { sql } from '@preflight/db';
import { decodeEvent, envelopesFor, kindOfSubject, kindOfType } from '@preflight/events';
import type { Logger } from '@preflight/log';
import type { EndpointDirectory } from '../clients/endpoint-directory.ts';
import type { DeliveryDatabase } from '../storage/schema.ts';

/** The durable consumer of every domain event; also labels its inbox rows and metrics. */
export const FANOUT_CONSUMER = 'delivery-fanout';

/** The NOTIFY channel the scheduler listens on for new deliveries. */
export const deliveryChannel = (schema: string): string => `${schema}_delivery`;

/**
 * For each domain event: its public envelopes (`routeOf`), the organisation's enabled endpoints that
 * receive each one (the webhook service's internal API, through the endpoint cache: an event
 * of an organisation without endpoints costs no call within the TTL), and one pending `deliveries` row per
 * (event, endpoint) holding the body bytes to send. Runs in the consumer's transaction, after
 * its inbox row: a redelivered event fans out nothing twice, and a failure (the webhook
 * service unreachable, say) rolls everything back for a later redelivery. Secrets are not
 * stored: each attempt looks the endpoint up again.
 */
export function fanoutHandler(opts: { subjectPrefix: string; schema: string; endpoints: Pick<EndpointDirectory, 'endpointsFor'>; logger: Logger }): EventHandler<DeliveryDatabase> {
  const log = opts.logger.child({ component: 'fanout' });
  return async (consumed, trx) => {
    const route = routeOf(consumed, opts.subjectPrefix);
    if (route.kind === 'unknown') {
      // A kind this build does not know (a newer producer): nothing it could map publicly.
      log.warn({ eventId: consumed.id, subject: consumed.subject, type: consumed.type }, 'unknown domain event; not delivered');
      return;
    }
    if (route.kind === 'no-org') {
      log.error({ eventId: consumed.id, kind: route.eventKind }, 'domain event without an organisation; not delivered');
      return;
    }
    if (route.kind === 'private') return;
    const { orgId, envelopes } = route;
    let inserted = 0;
    for (const envelope of envelopes) {
      const endpoints = await opts.endpoints.endpointsFor(orgId, envelope.eventType);
      if (endpoints.length === 0) continue;
      const body = JSON.stringify(envelope);
      const result = await trx
        .with('inserted', (db) =>
          db
            .insertInto('deliveries')
            .values(
              endpoints.map((e) => ({
                id: randomUUID(),
                event_id: consumed.id,
                event_type: envelope.eventType,
                endpoint_id: e.id,
                org_id: orgId,
                url: e.url,
                envelope: body,
              })),
            )
            .onConflict((c) => c.columns(['event_id', 'endpoint_id', 'event_type']).doNothing())
            .returning('id'),
        )
        .selectNoFrom([
          sql<number>`(select count(*) from inserted)::integer`.as('inserted'),
          // In the same statement (one round trip less per event); delivered at commit, never
          // for a rolled-back transaction, and only when a row was new (a redelivery wakes nobody).
          sql<unknown>`(select pg_notify(${deliveryChannel(opts.schema)}, '') where exists (select 1 from inserted))`.as('notified'),
        ])
        .executeTakeFirstOrThrow();
      inserted += result.inserted;
    }
    if (inserted > 0) log.debug({ eventId: consumed.id, deliveries: inserted }, 'event fanned out');
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

/** What an event becomes publicly (`envelopesFor`: envelope id = event id, so a redelivery or a retry builds the very same body), and for whom. */
function routeOf(consumed: ConsumedEvent, subjectPrefix: string): Route {
  const kind = (consumed.type && kindOfType(consumed.type)) || kindOfSubject(consumed.subject, subjectPrefix);
  if (!kind) return { kind: 'unknown' };
  const event = decodeEvent(kind, consumed.payload);
  const envelopes = envelopesFor(consumed.id, event);
  if (envelopes.length === 0) return { kind: 'private' };
  const orgId = consumed.orgId ?? event.message.orgId;
  if (!orgId) return { kind: 'no-org', eventKind: kind };
  return { kind: 'public', orgId, envelopes };
}
