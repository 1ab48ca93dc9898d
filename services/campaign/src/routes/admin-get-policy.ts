import { notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { findCampaign } from '../storage/campaigns.ts';
import { loadPolicy } from '../storage/readiness.ts';
import type { Registration } from './context.ts';

/**
 * GET /admin/v1/campaigns/:id/policy: the campaign's launch thresholds,
 * `{doNotLaunch: {minSeverity, maxOpen}, atRisk: {minSeverity, maxOpen}}` (the default until
 * an operator replaced them). Semantics: domain/launch-policy.ts and docs/readiness.md.
 */
export const register: Registration = (app, { db }) =>
  route(app, 'adminGetPolicy', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    if (!(await findCampaign(db, id, orgScope))) throw notFound('campaign', id);
    io.send(await loadPolicy(db, id));
  });
