import { requireApiKey } from '@preflight/http';
import { route } from '@preflight/service-kit';
import type { Registration } from './context.ts';
import { createWebhook } from './create-webhook.ts';

/** POST /api/v1/webhooks (spec 4.9): an enabled endpoint with source `api`; the secret is shown only here. */
export const register: Registration = (app, ctx) =>
  route(app, 'createWebhook', async (req, res, io) => {
    const caller = requireApiKey(req);
    const created = await createWebhook(ctx, req.body, caller.orgId, 'api');
    res.setHeader('Location', `/api/v1/webhooks/${created.id}`);
    io.send(created);
  });
