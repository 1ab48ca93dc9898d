import { z } from 'zod';
import { requiredText } from '@preflight/contract';
import { notFound, parseBody, pathId, requireAdmin, sendJson } from '@preflight/http';
import { toAdminTask } from '../views/signoff-view.ts';
import { createTask } from '../storage/testers.ts';
import type { Registration } from './context.ts';
import { requiredMessage } from './signoff-fields.ts';

const MAX_TASK_TITLE = 200;

const CreateTaskSchema = z.strictObject({
  title: requiredText(MAX_TASK_TITLE),
  required: z.boolean({ error: (issue) => requiredMessage(issue) ?? 'Must be true or false.' }),
});

/** POST /admin/v1/campaigns/:id/tasks {title, required}: 201 {id, title, required}. */
export const register: Registration = (app, { db }) => {
  app.post('/admin/v1/campaigns/:id/tasks', async (req, res) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const body = parseBody(CreateTaskSchema, req.body);
    const task = await createTask(db, { campaignId: id, title: body.title, required: body.required, orgScope });
    if (!task) throw notFound('campaign', id);
    sendJson(req, res, 201, toAdminTask(task));
  });
};
