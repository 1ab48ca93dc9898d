import { notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { toAdminWebhook } from '../views/webhook-view.ts';
import { enableWebhook } from '../storage/webhooks.ts';
import type { Registration } from './context.ts';

/** POST /admin/v1/webhooks/:id/enable: re-enables (idempotently) and resets the failure streak. */
export const register: Registration = (app, { db, logger, signal }) =>
  route(app, 'adminEnableWebhook', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'webhook');
    const row = await enableWebhook(db, id, orgScope);
    if (!row) throw notFound('webhook', id);
    logger.info({ webhookId: id, orgId: row.orgId }, 'webhook enabled');
    // reset: every delivery replica forgets what its breaker learnt about the endpoint.
    await signal.changed({ orgId: row.orgId, endpointId: id, reset: true });
    io.send(toAdminWebhook(row));
  });
