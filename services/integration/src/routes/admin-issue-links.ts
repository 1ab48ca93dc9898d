import { AppError, notFound, pathId, requireAdmin, sendJson } from '@preflight/http';
import { IssueServiceUnavailable } from '../clients/issue-client.ts';
import { linksOfIssue } from '../storage/links.ts';
import type { Registration } from './context.ts';

async function issueExists(ctx: Parameters<Registration>[1], issueId: string): Promise<boolean> {
  try {
    return (await ctx.issues.issue(issueId)) !== undefined;
  } catch (err) {
    if (err instanceof IssueServiceUnavailable) throw new AppError('dependency_unavailable', 'The issue service cannot say whether the issue exists just now; try again.');
    throw err;
  }
}

/** GET /admin/v1/issues/:id/links: the tracker issues a Preflight issue is linked to ([] when none, 404 for an issue that does not exist). */
export const adminIssueLinks: Registration = (app, ctx) => {
  app.get('/admin/v1/issues/:id/links', async (req, res) => {
    requireAdmin(req);
    const issueId = pathId(req.params.id, 'issue');
    const rows = await linksOfIssue(ctx.db, issueId);
    // No links: say 404 if there is no such issue at all (the issue service knows).
    if (rows.length === 0 && !(await issueExists(ctx, issueId))) throw notFound('issue', issueId);
    sendJson(
      req,
      res,
      200,
      rows.map((r) => ({ integrationId: r.connection_id, kind: r.kind, externalKey: r.external_key, url: r.url, syncedAt: r.synced_at.toISOString() })),
    );
  });
};
