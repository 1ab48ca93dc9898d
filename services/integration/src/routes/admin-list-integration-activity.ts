import { notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { listActivity } from '../storage/activity.ts';
import { findConnection } from '../storage/connections.ts';
import { toActivity } from '../views/connection-view.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/integrations/:id/activity?limit=: newest first, default 50, at most 200. */
export const register: Registration = (app, ctx) =>
  route(app, 'adminListIntegrationActivity', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'integration');
    const { limit } = io.query;
    if (!(await findConnection(ctx.db, id, orgScope))) throw notFound('integration', id);
    io.send((await listActivity(ctx.db, id, limit)).map(toActivity));
  });
