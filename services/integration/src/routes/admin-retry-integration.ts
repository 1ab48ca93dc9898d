import { notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { findConnection } from '../storage/connections.ts';
import { requeueFailedJobs } from '../storage/jobs.ts';
import type { Registration } from './context.ts';

/**
 * POST /admin/v1/integrations/:id/retry: every job of the connection that was given up (`failed`
 * in the activity) runs again from its first try, e.g. after a Jira screen was fixed or a
 * repository renamed back. 200 `{requeued}`.
 */
export const register: Registration = (app, ctx) =>
  route(app, 'adminRetryIntegration', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'integration');
    if (!(await findConnection(ctx.db, id, orgScope))) throw notFound('integration', id);
    const requeued = await requeueFailedJobs(ctx.db, id);
    if (requeued > 0) ctx.worker.kick();
    ctx.logger.info({ connectionId: id, requeued }, 'failed integration jobs requeued');
    io.send({ requeued });
  });
