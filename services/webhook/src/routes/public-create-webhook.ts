import type { ResponseOf } from '@preflight/contract';
import { requireApiKey, sendJson } from '@preflight/http';
import type { Registration } from './context.ts';
import { createWebhook } from './create-webhook.ts';

/** POST /api/v1/webhooks (spec 4.9): an enabled endpoint with source `api`; the secret is shown only here. */
export const register: Registration = (app, ctx) => {
  app.post('/api/v1/webhooks', async (req, res) => {
    const caller = requireApiKey(req);
    const created = await createWebhook(ctx, req.body, caller.orgId, 'api');
    res.setHeader('Location', `/api/v1/webhooks/${created.id}`);
    sendJson(req, res, 201, created satisfies ResponseOf<'createWebhook'>);
  });
};
