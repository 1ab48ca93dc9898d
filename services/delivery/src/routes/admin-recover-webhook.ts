import { z } from 'zod';
import { parseBody, pathId, requireAdmin, sendJson, validationFailed } from '@preflight/http';
import { newDeliveryId } from '../domain/ids.ts';
import { failedSince, insertOperatorDeliveries } from '../storage/operator-deliveries.ts';
import type { Registration } from './context.ts';
import { operatorEndpoint } from './webhook-lookup.ts';

/** How far back a recovery may reach (admin-api-v1.md). */
export const RECOVER_MAX_DAYS = 30;

const RecoverSchema = z.object({
  since: z.iso.datetime({ offset: true, error: 'since must be a date-time, e.g. 2026-01-31T12:00:00Z.' }),
});

/**
 * POST /admin/v1/webhooks/:id/recover `{since}`: every event whose delivery to this endpoint
 * failed (all attempts used) since `since`, and was not delivered since, gets a new delivery.
 * Events of the time the endpoint was disabled were never attempted, so they are not among
 * them. 202 `{count}`; 409 while the endpoint is disabled.
 */
export const register: Registration = (app, ctx) => {
  app.post('/admin/v1/webhooks/:id/recover', async (req, res) => {
    const orgScope = requireAdmin(req);
    const endpointId = pathId(req.params.id, 'webhook');
    const since = new Date(parseBody(RecoverSchema, req.body).since);
    const now = Date.now();
    if (since.getTime() > now) throw validationFailed({ since: ['since must not be in the future.'] });
    if (since.getTime() < now - RECOVER_MAX_DAYS * 86_400_000) throw validationFailed({ since: [`since must be at most ${RECOVER_MAX_DAYS} days back.`] });
    const endpoint = await operatorEndpoint(ctx, endpointId, true, orgScope);
    const failed = await failedSince(ctx.db, endpointId, since, ctx.lastAttempt);
    await insertOperatorDeliveries(ctx.db, {
      rows: failed.map((f) => ({ id: newDeliveryId(), eventId: f.event_id, eventType: f.event_type, endpointId, orgId: endpoint.orgId, url: endpoint.url, trigger: 'recover' })),
      channel: ctx.channel,
    });
    ctx.logger.info({ endpointId, since: since.toISOString(), count: failed.length }, 'failed deliveries recovered');
    sendJson(req, res, 202, { count: failed.length });
  });
};
