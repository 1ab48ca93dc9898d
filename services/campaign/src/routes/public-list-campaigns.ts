import { requireApiKey, sendJsonText } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { listCampaignsJson } from '../storage/campaigns.ts';
import type { Registration } from './context.ts';

/** GET /api/v1/campaigns?status= : the calling key's organisation's campaigns, newest first, not paged. */
export const register: Registration = (app, { db }) =>
  route(app, 'listCampaigns', async (req, res, io) => {
    const { orgId } = requireApiKey(req);
    const { status } = io.query;
    // Postgres writes the JSON text (storage/campaigns.ts), so it goes out as text, not through io.send.
    sendJsonText(req, res, 200, await listCampaignsJson(db, orgId, { status }));
  });
