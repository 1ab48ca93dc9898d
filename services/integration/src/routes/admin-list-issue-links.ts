import { AppError, inOrgScope, notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { IssueServiceUnavailable } from '../clients/issue-client.ts';
import { linksOfIssue } from '../storage/links.ts';
import { toIssueLink } from '../views/connection-view.ts';
import type { Registration } from './context.ts';

/** Whether the issue exists (in `orgScope`): the issue service knows, and whose it is. */
async function issueExists(ctx: Parameters<Registration>[1], issueId: string, orgScope: string | undefined): Promise<boolean> {
  try {
    const issue = await ctx.issues.issue(issueId);
    return issue !== undefined && inOrgScope(orgScope, issue.orgId);
  } catch (err) {
    if (err instanceof IssueServiceUnavailable) throw new AppError('dependency_unavailable', 'The issue service cannot say whether the issue exists just now; try again.');
    throw err;
  }
}

/**
 * GET /admin/v1/issues/:id/links: the tracker issues a Preflight issue is linked to ([] when
 * none, 404 for an issue that does not exist). A console member sees the links of their
 * organisation's connections only (an issue is only ever linked by its own organisation's), and
 * 404 for another organisation's issue.
 */
export const register: Registration = (app, ctx) =>
  route(app, 'adminListIssueLinks', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const issueId = pathId(req.params.id, 'issue');
    const rows = await linksOfIssue(ctx.db, issueId, orgScope);
    // No links: say 404 if there is no such issue at all, or not in scope (the issue service knows).
    if (rows.length === 0 && !(await issueExists(ctx, issueId, orgScope))) throw notFound('issue', issueId);
    io.send(rows.map(toIssueLink));
  });
