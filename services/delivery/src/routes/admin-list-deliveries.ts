import { z } from 'zod';
import { notFound, parseQuery, pathId, requireAdmin, sendJson } from '@preflight/http';
import { listAttempts } from '../storage/deliveries.ts';
import type { Registration } from './context.ts';
import { endpointOrg, requireOwnEndpoint } from './webhook-lookup.ts';

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
 * attempt, newest first (admin-api-v1.md, "Webhook settings and delivery logs"). Attempts are
 * this service's, endpoints the webhook service's: a log with entries is served as it is (a
 * deleted endpoint's history included); an empty one is 200 [] for an endpoint that exists
 * and has not been delivered to yet, 404 for an id the webhook service does not know, and 503
 * when the webhook service cannot say. A malformed id is 404 like everywhere else. A console
 * member sees the logs of their organisation's endpoints that exist (the webhook service is
 * asked first), another organisation's being 404.
 */
export const register: Registration = (app, ctx) => {
  app.get('/admin/v1/webhooks/:id/deliveries', async (req, res) => {
    const orgScope = requireAdmin(req);
    const endpointId = pathId(req.params.id, 'webhook');
    const { limit } = parseQuery(DeliveryLogQuerySchema, req.query);
    await requireOwnEndpoint(ctx, endpointId, orgScope);
    const rows = await listAttempts(ctx.db, endpointId, limit);
    // A member's endpoint was just found; the operator's empty log is of an endpoint that exists, or 404.
    if (rows.length === 0 && orgScope === undefined && (await endpointOrg(ctx, endpointId)) === undefined) throw notFound('webhook', endpointId);
    sendJson(
      req,
      res,
      200,
      rows.map((r) => ({
        // The attempt's own id: the X-Service-Delivery its request carried.
        deliveryId: r.attempt_id,
        eventId: r.event_id,
        eventType: r.event_type,
        attempt: r.attempt,
        attemptedAt: new Date(r.attempted_at).toISOString(),
        statusCode: r.status_code,
        durationMs: r.duration_ms,
        responseBody: r.response_body,
        error: r.error,
        outcome: r.outcome,
        trigger: r.trigger,
      })),
    );
  });
};
