import { notFound, pathId, requireAdmin } from '@preflight/http';
import { deleteConnection } from '../storage/connections.ts';
import type { Registration } from './context.ts';

/** DELETE /admin/v1/integrations/:id: 204; its waiting jobs are cancelled, nothing more is sent for it. */
export const register: Registration = (app, ctx) => {
  app.delete('/admin/v1/integrations/:id', async (req, res) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'integration');
    if (!(await deleteConnection(ctx.db, id, orgScope))) throw notFound('integration', id);
    ctx.clients.forget(id);
    ctx.breakers.reset(id);
    ctx.logger.info({ connectionId: id }, 'integration deleted');
    res.status(204).end();
  });
};
