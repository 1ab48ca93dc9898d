import { z } from 'zod';
import { notFound, parseQuery, pathId, requireAdmin, sendJson } from '@preflight/http';
import { listActivity } from '../storage/activity.ts';
import { findConnection } from '../storage/connections.ts';
import { toActivity } from '../views/connection-view.ts';
import type { Registration } from './context.ts';

const ActivityQuery = z.object({
  limit: z.coerce.number({ error: 'Must be a whole number from 1 to 200.' }).int('Must be a whole number from 1 to 200.').min(1, 'Must be a whole number from 1 to 200.').max(200, 'Must be a whole number from 1 to 200.').default(50),
});

/** GET /admin/v1/integrations/:id/activity?limit=: newest first, default 50, at most 200. */
export const register: Registration = (app, ctx) => {
  app.get('/admin/v1/integrations/:id/activity', async (req, res) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'integration');
    const { limit } = parseQuery(ActivityQuery, req.query);
    if (!(await findConnection(ctx.db, id, orgScope))) throw notFound('integration', id);
    sendJson(req, res, 200, (await listActivity(ctx.db, id, limit)).map(toActivity));
  });
};
