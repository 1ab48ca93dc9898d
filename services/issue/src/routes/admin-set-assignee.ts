import { notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { setIssueAssignee } from '../storage/issue-changes.ts';
import { adminIssueDetail } from './admin-issue-detail.ts';
import type { Registration } from './context.ts';

/** POST /admin/v1/issues/:id/assignee `{assigneeName}` (null unassigns). */
export const register: Registration = (app, { db, events }) =>
  route(app, 'adminSetAssignee', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const issueId = pathId(req.params.id, 'issue');
    const { assigneeName } = io.body;
    if (!(await setIssueAssignee(db, events, { issueId, assigneeName, orgScope }))) throw notFound('issue', issueId);
    io.send(await adminIssueDetail(db, issueId, orgScope));
  });
