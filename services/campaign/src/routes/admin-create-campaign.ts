import { z } from 'zod';
import { requiredText } from '@preflight/contract';
import { notFound, parseBody, pathId, requireAdmin, sendJson } from '@preflight/http';
import { toPublicCampaign } from '../views/campaign-view.ts';
import { createCampaign } from '../storage/campaign-changes.ts';
import type { Registration } from './context.ts';

const MAX_CAMPAIGN_NAME = 200;

const CreateCampaignRequestSchema = z.strictObject({
  name: requiredText(MAX_CAMPAIGN_NAME),
});

/** POST /admin/v1/sites/:siteId/campaigns {name}: a Draft campaign in the site's organisation. */
export const register: Registration = (app, { db, events }) => {
  app.post('/admin/v1/sites/:siteId/campaigns', async (req, res) => {
    const orgScope = requireAdmin(req);
    const siteId = pathId(req.params.siteId, 'site');
    const body = parseBody(CreateCampaignRequestSchema, req.body);
    const campaign = await createCampaign(db, { siteId, name: body.name, orgScope }, events);
    if (!campaign) throw notFound('site', siteId);
    sendJson(req, res, 201, toPublicCampaign(campaign));
  });
};
