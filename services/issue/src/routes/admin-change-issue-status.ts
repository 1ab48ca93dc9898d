import { parseBody, pathId, requireAdmin, sendJson } from '@preflight/http';
import { adminIssueDetail } from './admin-issue-detail.ts';
import type { Registration } from './context.ts';
import { ChangeStatusRequestSchema, applyStatusChange } from './status-change.ts';

/** POST /admin/v1/issues/:id/status: one step of the workflow (domain/issue-workflow.ts). */
export const register: Registration = (app, { db, events }) => {
  app.post('/admin/v1/issues/:id/status', async (req, res) => {
    const orgScope = requireAdmin(req);
    const issueId = pathId(req.params.id, 'issue');
    const body = parseBody(ChangeStatusRequestSchema, req.body);
    await applyStatusChange(db, events, issueId, { ...body, origin: null, orgScope });
    sendJson(req, res, 200, await adminIssueDetail(db, issueId, orgScope));
  });
};
