import { notFound, pathId, requireAdmin, sendJson } from '@preflight/http';
import { findConnection } from '../storage/connections.ts';
import { requeueFailedJobs } from '../storage/jobs.ts';
import type { Registration } from './context.ts';

/**
 * POST /admin/v1/integrations/:id/retry: every job of the connection that was given up (`failed`
 * in the activity) runs again from its first try, e.g. after a Jira screen was fixed or a
 * repository renamed back. 200 `{requeued}`.
 */
export const register: Registration = (app, ctx) => {
  app.post('/admin/v1/integrations/:id/retry', async (req, res) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'integration');
    if (!(await findConnection(ctx.db, id, orgScope))) throw notFound('integration', id);
    const requeued = await requeueFailedJobs(ctx.db, id);
    if (requeued > 0) ctx.worker.kick();
    ctx.logger.info({ connectionId: id, requeued }, 'failed integration jobs requeued');
    sendJson(req, res, 200, { requeued });
  });
};
