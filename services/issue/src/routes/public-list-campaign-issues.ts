import { IssueListQuerySchema, type ResponseOf } from '@preflight/contract';
import { parseQuery, pathId, requireApiKey, sendJson } from '@preflight/http';
import { toIssuePage } from '../views/issue-view.ts';
import { listIssues } from '../storage/issue-list.ts';
import type { Registration } from './context.ts';

/** GET /api/v1/campaigns/:id/issues (public-api-v1.md 4.3). */
export const register: Registration = (app, { db, directory }) => {
  app.get('/api/v1/campaigns/:id/issues', async (req, res) => {
    const caller = requireApiKey(req);
    const campaignId = pathId(req.params.id, 'campaign');
    const query = parseQuery(IssueListQuerySchema, req.query);
    await directory.campaignFor(campaignId, caller.orgId);
    const { rows, total } = await listIssues(db, { campaignId, ...query });
    sendJson(req, res, 200, toIssuePage(rows, total, query) satisfies ResponseOf<'listCampaignIssues'>);
  });
};
