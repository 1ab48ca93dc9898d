import { pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { adminIssueDetail } from './admin-issue-detail.ts';
import type { Registration } from './context.ts';
import { applyStatusChange } from './status-change.ts';

/** POST /admin/v1/issues/:id/status: one step of the workflow (domain/issue-workflow.ts). */
export const register: Registration = (app, { db, events }) =>
  route(app, 'adminChangeIssueStatus', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const issueId = pathId(req.params.id, 'issue');
    await applyStatusChange(db, events, issueId, { ...io.body, origin: null, orgScope });
    io.send(await adminIssueDetail(db, issueId, orgScope));
  });
