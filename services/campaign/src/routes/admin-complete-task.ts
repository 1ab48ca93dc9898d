import { z } from 'zod';
import { optionalText } from '@preflight/contract';
import { notFound, parseBody, pathId, requireAdmin, sendJson } from '@preflight/http';
import { toAdminTesterProgress } from '../views/signoff-view.ts';
import { completeTask } from '../storage/testers.ts';
import type { Registration } from './context.ts';

const MAX_VERDICT = 200;

const CompleteTaskSchema = z.strictObject({ verdict: optionalText(MAX_VERDICT) });

/**
 * POST /admin/v1/campaign-testers/:campaignTesterId/tasks/:taskId/complete {verdict?}: 200 the
 * tester with the tasks it has completed. Completing the last required task completes the
 * tester (once) and, unless it is a preview tester, emits TesterCompleted. A task of another
 * campaign is 404, as is a tester of another organisation for a console member.
 */
export const register: Registration = (app, { db, events }) => {
  app.post('/admin/v1/campaign-testers/:campaignTesterId/tasks/:taskId/complete', async (req, res) => {
    const orgScope = requireAdmin(req);
    const campaignTesterId = pathId(req.params.campaignTesterId, 'campaign tester');
    const taskId = pathId(req.params.taskId, 'task');
    const body = parseBody(CompleteTaskSchema, req.body ?? {});
    const done = await completeTask(db, { campaignTesterId, taskId, verdict: body.verdict, orgScope }, events);
    if (done.outcome === 'tester_not_found') throw notFound('campaign tester', campaignTesterId);
    if (done.outcome === 'task_not_found') throw notFound('task', taskId);
    sendJson(req, res, 200, toAdminTesterProgress(done.tester, done.tasks));
  });
};
