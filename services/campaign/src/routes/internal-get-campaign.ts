import { notFound, pathId, sendJson } from '@preflight/http';
import { toInternalCampaign } from '../views/campaign-view.ts';
import { findCampaign } from '../storage/campaigns.ts';
import type { Registration } from './context.ts';

/**
 * GET /internal/v1/campaigns/:id: the issue service's directory read-through. The gateway
 * never routes /internal, so there is no caller to check; the answer carries the orgId for
 * the reader to scope by.
 */
export const register: Registration = (app, { db }) => {
  app.get('/internal/v1/campaigns/:id', async (req, res) => {
    const id = pathId(req.params.id, 'campaign');
    const campaign = await findCampaign(db, id);
    if (!campaign) throw notFound('campaign', id);
    sendJson(req, res, 200, toInternalCampaign(campaign));
  });
};
