import { pathId, requireApiKey } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { toIssuePage } from '../views/issue-view.ts';
import { listIssues } from '../storage/issue-list.ts';
import type { Registration } from './context.ts';

/** GET /api/v1/campaigns/:id/issues (public-api-v1.md 4.3). */
export const register: Registration = (app, { db, directory }) =>
  route(app, 'listCampaignIssues', async (req, _res, io) => {
    const caller = requireApiKey(req);
    const campaignId = pathId(req.params.id, 'campaign');
    const query = io.query;
    await directory.campaignFor(campaignId, caller.orgId);
    const { rows, total } = await listIssues(db, { campaignId, ...query });
    io.send(toIssuePage(rows, total, query));
  });
