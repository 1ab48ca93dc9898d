import { notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { deleteConnection } from '../storage/connections.ts';
import type { Registration } from './context.ts';

/** DELETE /admin/v1/integrations/:id: 204; its waiting jobs are cancelled, nothing more is sent for it. */
export const register: Registration = (app, ctx) =>
  route(app, 'adminDeleteIntegration', async (req, res) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'integration');
    if (!(await deleteConnection(ctx.db, id, orgScope))) throw notFound('integration', id);
    ctx.clients.forget(id);
    ctx.breakers.reset(id);
    ctx.logger.info({ connectionId: id }, 'integration deleted');
    // 204: no body to send through io.send.
    res.status(204).end();
  });
