import { notFound, pathId, requireAdmin, validationFailed } from '@preflight/http';
import { openSecret, sealSecret } from '@preflight/secret-box';
import { route } from '@preflight/service-kit';
import { checkUpdateRequest } from '../domain/connection-request.ts';
import { credentialsContext } from '../domain/sealing.ts';
import { credentialsOf, findConnection, updateConnection } from '../storage/connections.ts';
import { toConnection } from '../views/connection-view.ts';
import { connectionUrlErrors } from './connection-urls.ts';
import type { Registration } from './context.ts';

/**
 * PATCH /admin/v1/integrations/:id: any of the settings. New credentials (always the whole
 * object) clear `needs-attention`, reset the connection's breaker and wake its waiting jobs.
 */
export const register: Registration = (app, ctx) =>
  route(app, 'adminUpdateIntegration', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'integration');
    const row = await findConnection(ctx.db, id, orgScope);
    if (!row) throw notFound('integration', id);
    const change = checkUpdateRequest(row.kind, io.body);
    if (change.config || change.credentials) {
      const credentials = change.credentials ?? (JSON.parse(openSecret(ctx.keys, credentialsOf(row), credentialsContext(id))) as Record<string, unknown>);
      const urlErrors = await connectionUrlErrors(ctx, row.kind, { config: change.config ?? row.config, credentials });
      if (Object.keys(urlErrors).length > 0) throw validationFailed(urlErrors);
    }
    const updated = await updateConnection(ctx.db, id, {
      ...change,
      credentials: change.credentials ? sealSecret(ctx.keys, JSON.stringify(change.credentials), credentialsContext(id)) : undefined,
    });
    if (!updated) throw notFound('integration', id);
    ctx.clients.forget(id);
    if (change.config || change.credentials || change.paused === false) {
      ctx.breakers.reset(id);
      ctx.worker.kick();
    }
    ctx.logger.info({ connectionId: id, fields: Object.keys(change) }, 'integration updated');
    io.send(toConnection(updated, ctx.inboundUrl));
  });
