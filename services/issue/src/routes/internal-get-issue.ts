import { pathId } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { internalIssueDetail } from './admin-issue-detail.ts';
import type { Registration } from './context.ts';

/**
 * GET /internal/v1/issues/:id: the admin detail plus `orgId`, for the integration service
 * (what it announces and creates in trackers, and whose connection applies), with `history`
 * null (the caller never reads it); 404 for an unknown or malformed id. Not routed by the gateway; no caller to check.
 */
export const register: Registration = (app, { db }) =>
  route(app, 'internalGetIssue', async (req, _res, io) => {
    io.send(await internalIssueDetail(db, pathId(req.params.id, 'issue'), { history: false }));
  });
