import { notFound, pathId, requireApiKey } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { toPublicIssue } from '../views/issue-view.ts';
import { historyOf } from '../storage/issue-history.ts';
import { findIssueDetail } from '../storage/issues.ts';
import type { Registration } from './context.ts';

/** GET /api/v1/issues/:id (public-api-v1.md 4.5). */
export const register: Registration = (app, { db }) =>
  route(app, 'getIssue', async (req, _res, { send }) => {
    const caller = requireApiKey(req);
    const issueId = pathId(req.params.id, 'issue');
    const row = await findIssueDetail(db, issueId, caller.orgId);
    if (!row) throw notFound('issue', issueId);
    send(toPublicIssue(row, await historyOf(db, issueId)));
  });
