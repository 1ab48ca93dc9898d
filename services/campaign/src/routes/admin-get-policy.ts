import { notFound, pathId, requireAdmin, sendJson } from '@preflight/http';
import { findCampaign } from '../storage/campaigns.ts';
import { loadPolicy } from '../storage/readiness.ts';
import type { Registration } from './context.ts';

/**
 * GET /admin/v1/campaigns/:id/policy: the campaign's launch thresholds,
 * `{doNotLaunch: {minSeverity, maxOpen}, atRisk: {minSeverity, maxOpen}}` (the default until
 * an operator replaced them). Semantics: domain/launch-policy.ts and docs/readiness.md.
 */
export const register: Registration = (app, { db }) => {
  app.get('/admin/v1/campaigns/:id/policy', async (req, res) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    if (!(await findCampaign(db, id, orgScope))) throw notFound('campaign', id);
    sendJson(req, res, 200, await loadPolicy(db, id));
  });
};
