import { IssueListQuerySchema } from '@preflight/contract';
import { parseQuery, pathId, requireAdmin, sendJson } from '@preflight/http';
import { toIssuePage } from '../views/issue-view.ts';
import { listIssues } from '../storage/issue-list.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/campaigns/:id/issues: the public list, for a campaign of any organisation (a console member: of theirs). */
export const register: Registration = (app, { db, directory }) => {
  app.get('/admin/v1/campaigns/:id/issues', async (req, res) => {
    const orgScope = requireAdmin(req);
    const campaignId = pathId(req.params.id, 'campaign');
    const query = parseQuery(IssueListQuerySchema, req.query);
    await directory.campaignFor(campaignId, orgScope);
    const { rows, total } = await listIssues(db, { campaignId, ...query });
    sendJson(req, res, 200, toIssuePage(rows, total, query));
  });
};
