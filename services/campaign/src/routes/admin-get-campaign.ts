import { notFound, pathId, requireAdmin, sendJson } from '@preflight/http';
import { toPublicCampaign } from '../views/campaign-view.ts';
import { findCampaign } from '../storage/campaigns.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/campaigns/:id: one campaign of any organisation (a console member: of theirs), in the public shape. */
export const register: Registration = (app, { db }) => {
  app.get('/admin/v1/campaigns/:id', async (req, res) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const campaign = await findCampaign(db, id, orgScope);
    if (!campaign) throw notFound('campaign', id);
    sendJson(req, res, 200, toPublicCampaign(campaign));
  });
};
