import { sampleEnvelope } from '@preflight/events';
import { pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { newDeliveryId, newTestEventId } from '../domain/ids.ts';
import { insertOperatorDeliveries } from '../storage/operator-deliveries.ts';
import type { Registration } from './context.ts';
import { operatorEndpoint } from './webhook-lookup.ts';

/**
 * POST /admin/v1/webhooks/:id/test `{eventType}`: the event's sample envelope (as
 * GET /api/v1/events/{eventKey}/sample builds it) with a fresh id and time goes through the
 * real pipeline (signed, logged, retried). Allowed on a disabled endpoint, whatever its
 * filter; its outcome never counts towards disabling. 202 `{eventId, deliveryId}`.
 */
export const register: Registration = (app, ctx) =>
  route(app, 'adminTestWebhook', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const endpointId = pathId(req.params.id, 'webhook');
    const { eventType } = io.body;
    const endpoint = await operatorEndpoint(ctx, endpointId, false, orgScope);
    const eventId = newTestEventId();
    const envelope = { ...sampleEnvelope(eventType)!, id: eventId, occurredAt: new Date().toISOString() };
    const id = newDeliveryId();
    await insertOperatorDeliveries(ctx.db, {
      rows: [{ id, eventId, eventType, endpointId, orgId: endpoint.orgId, url: endpoint.url, trigger: 'test' }],
      envelope: { eventId, eventType, body: JSON.stringify(envelope) },
      channel: ctx.channel,
    });
    ctx.logger.info({ endpointId, eventType, deliveryId: id }, 'test send queued');
    io.send({ eventId, deliveryId: id });
  });
