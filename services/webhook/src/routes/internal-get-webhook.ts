import { notFound, pathId } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { webhookState } from '../storage/webhooks.ts';
import type { Registration } from './context.ts';

/**
 * GET /internal/v1/webhooks/:id: whether an endpoint exists, whose it is and whether it is
 * enabled: 200 `{id, orgId, isEnabled}`, or 404 (unknown, deleted, or a malformed id). The
 * delivery service asks it when an endpoint's delivery log is empty, to tell an endpoint never
 * delivered to from one that does not exist, and whose an endpoint is when a console member
 * calls its admin routes. No secret or URL: `/endpoint` has those.
 */
export const register: Registration = (app, { db }) =>
  route(app, 'internalGetWebhook', async (req, _res, io) => {
    const id = pathId(req.params.id, 'webhook');
    const row = await webhookState(db, id);
    if (!row) throw notFound('webhook', id);
    io.send({ id, orgId: row.orgId, isEnabled: row.isEnabled });
  });
