import { z } from 'zod';
import { optionalText } from '@preflight/contract';
import { conflict, notFound, parseBody, pathId, requireAdmin, sendJson } from '@preflight/http';
import { allowedTransitions, refusedTransitionDetail, TARGET_STATUSES } from '../domain/campaign-lifecycle.ts';
import { toPublicCampaign } from '../views/campaign-view.ts';
import { changeCampaignStatus } from '../storage/campaign-changes.ts';
import type { Registration } from './context.ts';

const MAX_REASON = 1_000;

const ChangeCampaignStatusRequestSchema = z.strictObject({
  to: z.enum(TARGET_STATUSES, {
    error: (issue) => (issue.input === undefined || issue.input === null ? 'Is required.' : `Must be one of: ${TARGET_STATUSES.join(', ')}.`),
  }),
  reason: optionalText(MAX_REASON),
});

/**
 * POST /admin/v1/campaigns/:id/status {to, reason?}: moves the campaign along its lifecycle
 * (domain/campaign-lifecycle.ts). A move the lifecycle forbids, including to the current
 * status, is a 409 naming the current status and the allowed targets.
 */
export const register: Registration = (app, { db, events }) => {
  app.post('/admin/v1/campaigns/:id/status', async (req, res) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const body = parseBody(ChangeCampaignStatusRequestSchema, req.body);
    const change = await changeCampaignStatus(db, { campaignId: id, to: body.to, reason: body.reason, orgScope }, events);
    switch (change.outcome) {
      case 'not_found':
        throw notFound('campaign', id);
      case 'refused':
        throw conflict(refusedTransitionDetail(change.current, body.to), {
          currentStatus: change.current,
          allowedTransitions: allowedTransitions(change.current),
        });
      case 'changed':
        sendJson(req, res, 200, toPublicCampaign(change.campaign));
    }
  });
};
