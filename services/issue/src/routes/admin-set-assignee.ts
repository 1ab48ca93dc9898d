import { z } from 'zod';
import { notFound, parseBody, pathId, requireAdmin, sendJson } from '@preflight/http';
import { setIssueAssignee } from '../storage/issue-changes.ts';
import { adminIssueDetail } from './admin-issue-detail.ts';
import type { Registration } from './context.ts';

const MAX_ASSIGNEE = 200;

/** `assigneeName` must be sent: null unassigns, so leaving it out is a mistake, not a no-op. */
export const SetAssigneeRequestSchema = z.strictObject({
  assigneeName: z
    .string({ error: (issue) => (issue.input === undefined ? 'Is required; send null to unassign.' : 'Must be a string or null.') })
    .trim()
    .min(1, 'Must not be empty; send null to unassign.')
    .max(MAX_ASSIGNEE, `Must be at most ${MAX_ASSIGNEE} characters.`)
    .nullable(),
});

/** POST /admin/v1/issues/:id/assignee. */
export const register: Registration = (app, { db, events }) => {
  app.post('/admin/v1/issues/:id/assignee', async (req, res) => {
    const orgScope = requireAdmin(req);
    const issueId = pathId(req.params.id, 'issue');
    const { assigneeName } = parseBody(SetAssigneeRequestSchema, req.body);
    if (!(await setIssueAssignee(db, events, { issueId, assigneeName, orgScope }))) throw notFound('issue', issueId);
    sendJson(req, res, 200, await adminIssueDetail(db, issueId, orgScope));
  });
};
