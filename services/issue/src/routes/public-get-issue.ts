import type { ResponseOf } from '@preflight/contract';
import { notFound, pathId, requireApiKey, sendJson } from '@preflight/http';
import { toPublicIssue } from '../views/issue-view.ts';
import { historyOf } from '../storage/issue-history.ts';
import { findIssueDetail } from '../storage/issues.ts';
import type { Registration } from './context.ts';

/** GET /api/v1/issues/:id (public-api-v1.md 4.5). */
export const register: Registration = (app, { db }) => {
  app.get('/api/v1/issues/:id', async (req, res) => {
    const caller = requireApiKey(req);
    const issueId = pathId(req.params.id, 'issue');
    const row = await findIssueDetail(db, issueId, caller.orgId);
    if (!row) throw notFound('issue', issueId);
    sendJson(req, res, 200, toPublicIssue(row, await historyOf(db, issueId)) satisfies ResponseOf<'getIssue'>);
  });
};
