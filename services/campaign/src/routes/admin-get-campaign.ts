import { notFound, pathId, requireAdmin, sendJson } from '@preflight/http';
import { toPublicCampaign } from '../views/campaign-view.ts';
import { findCampaign } from '../storage/campaigns.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/campaigns/:id: one campaign of any organisation, in the public shape. */
export const adminGetCampaign: Registration = (app, { db }) => {
  app.get('/admin/v1/campaigns/:id', async (req, res) => {
    requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const campaign = await findCampaign(db, id);
    if (!campaign) throw notFound('campaign', id);
    sendJson(req, res, 200, toPublicCampaign(campaign));
  });
};
