import { conflict, notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { allowedTransitions, refusedTransitionDetail } from '../domain/campaign-lifecycle.ts';
import { toPublicCampaign } from '../views/campaign-view.ts';
import { changeCampaignStatus } from '../storage/campaign-changes.ts';
import type { Registration } from './context.ts';

/**
 * POST /admin/v1/campaigns/:id/status {to, reason?}: moves the campaign along its lifecycle
 * (domain/campaign-lifecycle.ts). A move the lifecycle forbids, including to the current
 * status, is a 409 naming the current status and the allowed targets.
 */
export const register: Registration = (app, { db, events }) =>
  route(app, 'adminChangeCampaignStatus', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const { to, reason } = io.body;
    const change = await changeCampaignStatus(db, { campaignId: id, to, reason, orgScope }, events);
    switch (change.outcome) {
      case 'not_found':
        throw notFound('campaign', id);
      case 'refused':
        throw conflict(refusedTransitionDetail(change.current, to), {
          currentStatus: change.current,
          allowedTransitions: allowedTransitions(change.current),
        });
      case 'changed':
        io.send(toPublicCampaign(change.campaign));
    }
  });
