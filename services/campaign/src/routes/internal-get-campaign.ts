import { notFound, pathId } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { toInternalCampaign } from '../views/campaign-view.ts';
import { findCampaign } from '../storage/campaigns.ts';
import type { Registration } from './context.ts';

/**
 * GET /internal/v1/campaigns/:id: the issue service's directory read-through. The gateway
 * never routes /internal, so there is no caller to check; the answer carries the orgId for
 * the reader to scope by.
 */
export const register: Registration = (app, { db }) =>
  route(app, 'internalGetCampaign', async (req, _res, io) => {
    const id = pathId(req.params.id, 'campaign');
    const campaign = await findCampaign(db, id);
    if (!campaign) throw notFound('campaign', id);
    io.send(toInternalCampaign(campaign));
  });
