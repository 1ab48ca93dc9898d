import { notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { listAttempts } from '../storage/deliveries.ts';
import { toDeliveryLogEntry } from '../views/delivery-log-view.ts';
import type { Registration } from './context.ts';
import { endpointOrg, requireOwnEndpoint } from './webhook-lookup.ts';

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
export const register: Registration = (app, ctx) =>
  route(app, 'adminListDeliveries', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const endpointId = pathId(req.params.id, 'webhook');
    const { limit } = io.query;
    await requireOwnEndpoint(ctx, endpointId, orgScope);
    const rows = await listAttempts(ctx.db, endpointId, limit);
    // A member's endpoint was just found; the operator's empty log is of an endpoint that exists, or 404.
    if (rows.length === 0 && orgScope === undefined && (await endpointOrg(ctx, endpointId)) === undefined) throw notFound('webhook', endpointId);
    io.send(rows.map(toDeliveryLogEntry));
  });
