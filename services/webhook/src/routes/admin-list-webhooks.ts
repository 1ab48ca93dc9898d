import { pathId, requireAdmin, sendJson } from '@preflight/http';
import { toAdminWebhook } from '../domain/webhook-view.ts';
import { listWebhooks } from '../storage/webhooks.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/organizations/:orgId/webhooks: the public shape plus consecutiveFailures and disabledAt. */
export const adminListWebhooks: Registration = (app, { db }) => {
  app.get('/admin/v1/organizations/:orgId/webhooks', async (req, res) => {
    requireAdmin(req);
    const orgId = pathId(req.params.orgId, 'organization');
    const rows = await listWebhooks(db, orgId);
    sendJson(req, res, 200, rows.map(toAdminWebhook));
  });
};
