import { notFound, parseBody, pathId, requireAdmin, sendJson } from '@preflight/http';
import { toAdminTask, toAdminTester, toAdminTesterProgress } from '../views/signoff-shapes.ts';
import { completeTask, createTask, createTester } from '../storage/testers.ts';
import type { RegisterRoute } from './route.ts';
import { CompleteTaskSchema, CreateTaskSchema, CreateTesterSchema } from './signoff-inputs.ts';

/** POST /admin/v1/campaigns/:id/tasks {title, required}: 201 {id, title, required}. */
export const registerCreateTask: RegisterRoute = (app, { db }) => {
  app.post('/admin/v1/campaigns/:id/tasks', async (req, res) => {
    requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const body = parseBody(CreateTaskSchema, req.body);
    const task = await createTask(db, { campaignId: id, title: body.title, required: body.required });
    if (!task) throw notFound('campaign', id);
    sendJson(req, res, 201, toAdminTask(task));
  });
};

/** POST /admin/v1/campaigns/:id/testers {name, email, preview?}: 201 {id, name, email, preview, status}. */
export const registerCreateTester: RegisterRoute = (app, { db }) => {
  app.post('/admin/v1/campaigns/:id/testers', async (req, res) => {
    requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const body = parseBody(CreateTesterSchema, req.body);
    const tester = await createTester(db, { campaignId: id, name: body.name, email: body.email, preview: body.preview });
    if (!tester) throw notFound('campaign', id);
    sendJson(req, res, 201, toAdminTester(tester));
  });
};

/**
 * POST /admin/v1/campaign-testers/:campaignTesterId/tasks/:taskId/complete {verdict?}: 200 the
 * tester with the tasks it has completed. Completing the last required task completes the
 * tester (once) and, unless it is a preview tester, emits TesterCompleted. A task of another
 * campaign is 404.
 */
export const registerCompleteTask: RegisterRoute = (app, { db, events }) => {
  app.post('/admin/v1/campaign-testers/:campaignTesterId/tasks/:taskId/complete', async (req, res) => {
    requireAdmin(req);
    const campaignTesterId = pathId(req.params.campaignTesterId, 'campaign tester');
    const taskId = pathId(req.params.taskId, 'task');
    const body = parseBody(CompleteTaskSchema, req.body ?? {});
    const done = await completeTask(db, { campaignTesterId, taskId, verdict: body.verdict }, events);
    if (done.outcome === 'tester_not_found') throw notFound('campaign tester', campaignTesterId);
    if (done.outcome === 'task_not_found') throw notFound('task', taskId);
    sendJson(req, res, 200, toAdminTesterProgress(done.tester, done.tasks));
  });
};
