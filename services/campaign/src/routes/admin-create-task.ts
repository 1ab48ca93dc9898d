import { notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { toAdminTask } from '../views/signoff-view.ts';
import { createTask } from '../storage/testers.ts';
import type { Registration } from './context.ts';

/** POST /admin/v1/campaigns/:id/tasks {title, required}: 201 {id, title, required}. */
export const register: Registration = (app, { db }) =>
  route(app, 'adminCreateTask', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const { title, required } = io.body;
    const task = await createTask(db, { campaignId: id, title, required, orgScope });
    if (!task) throw notFound('campaign', id);
    io.send(toAdminTask(task));
  });
