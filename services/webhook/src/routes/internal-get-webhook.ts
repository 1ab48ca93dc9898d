import { notFound, pathId, sendJson } from '@preflight/http';
import { webhookOrg } from '../storage/webhooks.ts';
import type { Registration } from './context.ts';

/**
 * GET /internal/v1/webhooks/:id: whether an endpoint exists, and whose it is: 200
 * `{id, orgId}`, or 404 (unknown, deleted, or a malformed id). The delivery service asks it
 * when an endpoint's delivery log is empty, to tell an endpoint never delivered to from one
 * that does not exist. No secret, URL or state: the log needs none of them.
 */
export const internalGetWebhook: Registration = (app, { db }) => {
  app.get('/internal/v1/webhooks/:id', async (req, res) => {
    const id = pathId(req.params.id, 'webhook');
    const orgId = await webhookOrg(db, id);
    if (!orgId) throw notFound('webhook', id);
    sendJson(req, res, 200, { id, orgId });
  });
};
