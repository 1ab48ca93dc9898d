import { pathId } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { internalIssueDetail } from './admin-issue-detail.ts';
import type { Registration } from './context.ts';
import { applyStatusChange } from './status-change.ts';

/**
 * POST /internal/v1/issues/:id/status {to, reason?, duplicateOfId?, origin}: the integration
 * service applies a status synced from an issue tracker. The admin route's pipeline and
 * outcomes (history, one IssueStatusChanged, 404, 409 with currentStatus/allowedTransitions,
 * 422), with `origin` (e.g. `integration:<connectionId>`) on the event so the caller can skip
 * its own echo. 200 the internal detail (the admin detail plus `orgId`). The gateway never
 * routes /internal, so there is no caller to check: only services reach it (the chart's
 * NetworkPolicy admits the gateway and the integration service).
 */
export const register: Registration = (app, { db, events }) =>
  route(app, 'internalChangeIssueStatus', async (req, _res, io) => {
    const issueId = pathId(req.params.id, 'issue');
    await applyStatusChange(db, events, issueId, io.body);
    io.send(await internalIssueDetail(db, issueId, { history: true }));
  });
