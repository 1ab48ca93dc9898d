import { pathId, requireAdmin, sendJson } from '@preflight/http';
import { adminIssueDetail } from './admin-issue-detail.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/issues/:id: the public detail plus `reporter`, for an issue of any organisation (a console member: of theirs). */
export const register: Registration = (app, { db }) => {
  app.get('/admin/v1/issues/:id', async (req, res) => {
    const orgScope = requireAdmin(req);
    sendJson(req, res, 200, await adminIssueDetail(db, pathId(req.params.id, 'issue'), orgScope));
  });
};
