import { notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { toPublicCampaign } from '../views/campaign-view.ts';
import { findCampaign } from '../storage/campaigns.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/campaigns/:id: one campaign of any organisation (a console member: of theirs), in the public shape. */
export const register: Registration = (app, { db }) =>
  route(app, 'adminGetCampaign', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const campaign = await findCampaign(db, id, orgScope);
    if (!campaign) throw notFound('campaign', id);
    io.send(toPublicCampaign(campaign));
  });
