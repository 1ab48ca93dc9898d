import { pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { adminIssueDetail } from './admin-issue-detail.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/issues/:id: the public detail plus `reporter`, for an issue of any organisation (a console member: of theirs). */
export const register: Registration = (app, { db }) =>
  route(app, 'adminGetIssue', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    io.send(await adminIssueDetail(db, pathId(req.params.id, 'issue'), orgScope));
  });
