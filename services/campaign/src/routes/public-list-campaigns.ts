import { CampaignListQuerySchema } from '@preflight/contract';
import { parseQuery, requireApiKey, sendJsonText } from '@preflight/http';
import { listCampaignsJson } from '../storage/campaigns.ts';
import type { Registration } from './context.ts';

/** GET /api/v1/campaigns?status= : the calling key's organisation's campaigns, newest first, not paged. */
export const register: Registration = (app, { db }) => {
  app.get('/api/v1/campaigns', async (req, res) => {
    const { orgId } = requireApiKey(req);
    const query = parseQuery(CampaignListQuerySchema, req.query);
    sendJsonText(req, res, 200, await listCampaignsJson(db, orgId, { status: query.status }));
  });
};
