import { notFound, pathId, requireApiKey } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { deleteWebhook } from '../storage/webhooks.ts';
import type { Registration } from './context.ts';

/** DELETE /api/v1/webhooks/:id (spec 4.10): 204; unknown, foreign and malformed ids are 404 alike. */
export const register: Registration = (app, { db, logger, signal }) =>
  route(app, 'deleteWebhook', async (req, res) => {
    const caller = requireApiKey(req);
    const id = pathId(req.params.id, 'webhook');
    if (!(await deleteWebhook(db, id, caller.orgId))) throw notFound('webhook', id);
    logger.info({ webhookId: id, orgId: caller.orgId }, 'webhook deleted');
    await signal.changed({ orgId: caller.orgId, endpointId: id });
    // No body: io.send answers JSON.
    res.status(204).end();
  });
