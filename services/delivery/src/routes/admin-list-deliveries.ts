import { z } from 'zod';
import { parseQuery, pathId, requireAdmin, sendJson } from '@preflight/http';
import { listAttempts } from '../storage/deliveries.ts';
import type { Registration } from './context.ts';

export const MAX_LIMIT = 200;
export const DEFAULT_LIMIT = 50;

const DeliveryLogQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^\d+$/, 'limit must be a whole number.')
    .transform(Number)
    .pipe(z.number().min(1, 'limit must be at least 1.').max(MAX_LIMIT, `limit must be at most ${MAX_LIMIT}.`))
    .default(DEFAULT_LIMIT),
});

/**
 * GET /admin/v1/webhooks/:id/deliveries?limit=: the endpoint's delivery log, one entry per
 * attempt, newest first (admin-api-v1.md, "Webhook settings and delivery logs"). Endpoints
 * belong to the webhook service, so an id with no attempts (unknown, or never delivered to)
 * is 200 []; a malformed id is 404 like everywhere else.
 */
export const adminListDeliveries: Registration = (app, { db }) => {
  app.get('/admin/v1/webhooks/:id/deliveries', async (req, res) => {
    requireAdmin(req);
    const endpointId = pathId(req.params.id, 'webhook');
    const { limit } = parseQuery(DeliveryLogQuerySchema, req.query);
    const rows = await listAttempts(db, endpointId, limit);
    sendJson(
      req,
      res,
      200,
      rows.map((r) => ({
        deliveryId: r.delivery_id,
        eventId: r.event_id,
        eventType: r.event_type,
        attempt: r.attempt,
        attemptedAt: new Date(r.attempted_at).toISOString(),
        statusCode: r.status_code,
        durationMs: r.duration_ms,
        responseBody: r.response_body,
        error: r.error,
        outcome: r.outcome,
      })),
    );
  });
};
