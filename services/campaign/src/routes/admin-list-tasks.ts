import { notFound, pathId, requireAdmin, sendJson } from '@preflight/http';
import { toAdminTask } from '../views/signoff-view.ts';
import { listTasks } from '../storage/testers.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/campaigns/:id/tasks: every task, oldest first (docs/api.md, decision 44). */
export const register: Registration = (app, { db }) => {
  app.get('/admin/v1/campaigns/:id/tasks', async (req, res) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const tasks = await listTasks(db, id, orgScope);
    if (!tasks) throw notFound('campaign', id);
    sendJson(req, res, 200, tasks.map(toAdminTask));
  });
};
