import { notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { toAdminTask } from '../views/signoff-view.ts';
import { listTasks } from '../storage/testers.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/campaigns/:id/tasks: every task, oldest first (docs/api.md, decision 44). */
export const register: Registration = (app, { db }) =>
  route(app, 'adminListTasks', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const tasks = await listTasks(db, id, orgScope);
    if (!tasks) throw notFound('campaign', id);
    io.send(tasks.map(toAdminTask));
  });
