import { conflict, notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { newDeliveryId } from '../domain/ids.ts';
import { insertOperatorDeliveries, loggedAttempt } from '../storage/operator-deliveries.ts';
import type { Registration } from './context.ts';
import { operatorEndpoint, requireOwnEndpoint } from './webhook-lookup.ts';

/**
 * POST /admin/v1/webhooks/:id/deliveries/:deliveryId/redeliver: the envelope a logged attempt
 * sent goes again as a new delivery (same envelope id, the usual retries), whatever the first
 * outcome was. 202 `{eventId, deliveryId}`: `deliveryId` is the X-Service-Delivery of the new
 * delivery's first attempt. 404 for an attempt this endpoint's log does not hold, 409 while
 * the endpoint is disabled.
 */
export const register: Registration = (app, ctx) =>
  route(app, 'adminRedeliver', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const endpointId = pathId(req.params.id, 'webhook');
    const attemptId = pathId(req.params.deliveryId, 'delivery');
    // A member's endpoint first: another organisation's is an unknown webhook whatever the attempt.
    await requireOwnEndpoint(ctx, endpointId, orgScope);
    const logged = await loggedAttempt(ctx.db, endpointId, attemptId);
    if (!logged) throw notFound('delivery', attemptId);
    const endpoint = await operatorEndpoint(ctx, endpointId, true, orgScope);
    if (logged.body === null) throw conflict(`The envelope of delivery '${attemptId}' is no longer kept, so it cannot be sent again.`);
    const id = newDeliveryId();
    await insertOperatorDeliveries(ctx.db, {
      rows: [{ id, eventId: logged.eventId, eventType: logged.eventType, endpointId, orgId: endpoint.orgId, url: endpoint.url, trigger: 'redeliver' }],
      channel: ctx.channel,
    });
    ctx.logger.info({ endpointId, eventId: logged.eventId, deliveryId: id }, 'redelivery queued');
    io.send({ eventId: logged.eventId, deliveryId: id });
  });
