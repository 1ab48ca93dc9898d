import { pathId, requireAdmin, validationFailed } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { newDeliveryId } from '../domain/ids.ts';
import { failedSince, insertOperatorDeliveries } from '../storage/operator-deliveries.ts';
import type { Registration } from './context.ts';
import { operatorEndpoint } from './webhook-lookup.ts';

/** How far back a recovery may reach (admin-api-v1.md). */
export const RECOVER_MAX_DAYS = 30;

/**
 * POST /admin/v1/webhooks/:id/recover `{since}`: every event whose delivery to this endpoint
 * failed (all attempts used) since `since`, and was not delivered since, gets a new delivery.
 * Events of the time the endpoint was disabled were never attempted, so they are not among
 * them. 202 `{count}`; 409 while the endpoint is disabled.
 */
export const register: Registration = (app, ctx) =>
  route(app, 'adminRecoverWebhook', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const endpointId = pathId(req.params.id, 'webhook');
    const since = new Date(io.body.since);
    const now = Date.now();
    if (since.getTime() > now) throw validationFailed({ since: ['since must not be in the future.'] });
    if (since.getTime() < now - RECOVER_MAX_DAYS * 86_400_000) throw validationFailed({ since: [`since must be at most ${RECOVER_MAX_DAYS} days back.`] });
    const endpoint = await operatorEndpoint(ctx, endpointId, true, orgScope);
    const failed = await failedSince(ctx.db, endpointId, since, ctx.lastAttempt);
    await insertOperatorDeliveries(ctx.db, {
      rows: failed.map((f) => ({ id: newDeliveryId(), eventId: f.eventId, eventType: f.eventType, endpointId, orgId: endpoint.orgId, url: endpoint.url, trigger: 'recover' })),
      channel: ctx.channel,
    });
    ctx.logger.info({ endpointId, since: since.toISOString(), count: failed.length }, 'failed deliveries recovered');
    io.send({ count: failed.length });
  });
