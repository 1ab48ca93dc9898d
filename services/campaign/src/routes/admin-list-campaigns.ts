import { CampaignListQuerySchema } from '@preflight/contract';
import { adminOrgId, parseQuery, sendJson } from '@preflight/http';
import { toPublicCampaign } from '../views/campaign-view.ts';
import { listCampaigns } from '../storage/campaigns.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/organizations/:orgId/campaigns?status= : as the public list, for any organisation. */
export const register: Registration = (app, { db }) => {
  app.get('/admin/v1/organizations/:orgId/campaigns', async (req, res) => {
    const orgId = adminOrgId(req);
    const query = parseQuery(CampaignListQuerySchema, req.query);
    const rows = await listCampaigns(db, orgId, { status: query.status });
    sendJson(req, res, 200, rows.map(toPublicCampaign));
  });
};
