import type { ResponseOf } from '@preflight/contract';
import { requireApiKey, sendJson } from '@preflight/http';
import { toPublicWebhook } from '../views/webhook-view.ts';
import { listWebhooks } from '../storage/webhooks.ts';
import type { Registration } from './context.ts';

/** GET /api/v1/webhooks (spec 4.8): the organisation's endpoints, newest first, never a secret. */
export const register: Registration = (app, { db }) => {
  app.get('/api/v1/webhooks', async (req, res) => {
    const caller = requireApiKey(req);
    const rows = await listWebhooks(db, caller.orgId);
    sendJson(req, res, 200, rows.map(toPublicWebhook) satisfies ResponseOf<'listWebhooks'>);
  });
};
