import { AdminCompleteTaskRequestSchema } from '@preflight/contract';
import { notFound, parseBody, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { toAdminTesterProgress } from '../views/signoff-view.ts';
import { completeTask } from '../storage/testers.ts';
import type { Registration } from './context.ts';

/**
 * POST /admin/v1/campaign-testers/:campaignTesterId/tasks/:taskId/complete {verdict?}: 200 the
 * tester with the tasks it has completed. Completing the last required task completes the
 * tester (once) and, unless it is a preview tester, emits TesterCompleted. A task of another
 * campaign is 404, as is a tester of another organisation for a console member.
 */
export const register: Registration = (app, { db, events }) =>
  route(app, 'adminCompleteTask', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const campaignTesterId = pathId(req.params.campaignTesterId, 'campaign tester');
    const taskId = pathId(req.params.taskId, 'task');
    // The body is optional here (no body is `{}`), and io.body answers 422 to a missing one.
    const body = parseBody(AdminCompleteTaskRequestSchema, req.body ?? {});
    const done = await completeTask(db, { campaignTesterId, taskId, verdict: body.verdict, orgScope }, events);
    if (done.outcome === 'tester_not_found') throw notFound('campaign tester', campaignTesterId);
    if (done.outcome === 'task_not_found') throw notFound('task', taskId);
    io.send(toAdminTesterProgress(done.tester, done.tasks));
  });
