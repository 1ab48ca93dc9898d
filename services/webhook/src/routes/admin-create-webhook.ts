import { adminOrgId } from '@preflight/http';
import { route } from '@preflight/service-kit';
import type { Registration } from './context.ts';
import { createWebhook } from './create-webhook.ts';

/**
 * POST /admin/v1/organizations/:orgId/webhooks (admin-api-v1.md, "Webhook settings"): the
 * public create with source `dashboard`. The gateway answers 404 for an unknown organisation.
 */
export const register: Registration = (app, ctx) =>
  route(app, 'adminCreateWebhook', async (req, res, io) => {
    const orgId = adminOrgId(req);
    const created = await createWebhook(ctx, req.body, orgId, 'dashboard');
    res.setHeader('Location', `/api/v1/webhooks/${created.id}`);
    io.send(created);
  });
