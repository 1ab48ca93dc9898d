import { requireApiKey } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { toPublicWebhook } from '../views/webhook-view.ts';
import { listWebhooks } from '../storage/webhooks.ts';
import type { Registration } from './context.ts';

/** GET /api/v1/webhooks (spec 4.8): the organisation's endpoints, newest first, never a secret. */
export const register: Registration = (app, { db }) =>
  route(app, 'listWebhooks', async (req, _res, io) => {
    const caller = requireApiKey(req);
    const rows = await listWebhooks(db, caller.orgId);
    io.send(rows.map(toPublicWebhook));
  });
