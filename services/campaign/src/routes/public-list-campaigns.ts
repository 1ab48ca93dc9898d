import { CampaignListQuerySchema, type ResponseOf } from '@preflight/contract';
import { parseQuery, requireApiKey, sendJson } from '@preflight/http';
import { toPublicCampaign } from '../views/campaign-view.ts';
import { listCampaigns } from '../storage/campaigns.ts';
import type { Registration } from './context.ts';

/** GET /api/v1/campaigns?status= : the calling key's organisation's campaigns, newest first, not paged. */
export const register: Registration = (app, { db }) => {
  app.get('/api/v1/campaigns', async (req, res) => {
    const { orgId } = requireApiKey(req);
    const query = parseQuery(CampaignListQuerySchema, req.query);
    const rows = await listCampaigns(db, orgId, { status: query.status });
    sendJson(req, res, 200, rows.map(toPublicCampaign) satisfies ResponseOf<'listCampaigns'>);
  });
};
