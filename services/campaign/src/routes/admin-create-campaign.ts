import { notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { toPublicCampaign } from '../views/campaign-view.ts';
import { createCampaign } from '../storage/campaign-changes.ts';
import type { Registration } from './context.ts';

/** POST /admin/v1/sites/:siteId/campaigns {name}: a Draft campaign in the site's organisation. */
export const register: Registration = (app, { db, events }) =>
  route(app, 'adminCreateCampaign', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const siteId = pathId(req.params.siteId, 'site');
    const campaign = await createCampaign(db, { siteId, name: io.body.name, orgScope }, events);
    if (!campaign) throw notFound('site', siteId);
    io.send(toPublicCampaign(campaign));
  });
