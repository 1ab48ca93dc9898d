import { CampaignListQuerySchema } from '@preflight/contract';
import { adminOrgId, parseQuery, sendJsonText } from '@preflight/http';
import { listCampaignsJson } from '../storage/campaigns.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/organizations/:orgId/campaigns?status= : as the public list, for any organisation. */
export const register: Registration = (app, { db }) => {
  app.get('/admin/v1/organizations/:orgId/campaigns', async (req, res) => {
    const orgId = adminOrgId(req);
    const query = parseQuery(CampaignListQuerySchema, req.query);
    sendJsonText(req, res, 200, await listCampaignsJson(db, orgId, { status: query.status }));
  });
};
