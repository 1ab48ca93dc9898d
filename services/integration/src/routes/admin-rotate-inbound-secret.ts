import { conflict, notFound, pathId, requireAdmin } from '@preflight/http';
import { newSigningSecret, sealSecret } from '@preflight/secret-box';
import { route } from '@preflight/service-kit';
import { inboundSecretContext } from '../domain/sealing.ts';
import { isTrackerKind } from '../providers/index.ts';
import { findConnection, replaceInboundSecret } from '../storage/connections.ts';
import type { Registration } from './context.ts';

/**
 * POST /admin/v1/integrations/:id/inbound-secret: a new inbound secret for a tracker, shown this
 * once (the 201 of the connection showed the first). The old one stops working at once: paste
 * the new one into the tracker's webhook settings right after.
 */
export const register: Registration = (app, ctx) =>
  route(app, 'adminRotateInboundSecret', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'integration');
    const row = await findConnection(ctx.db, id, orgScope);
    if (!row) throw notFound('integration', id);
    if (!isTrackerKind(row.kind)) throw conflict(`The integration is a ${row.kind} chat channel, which receives no hooks; only trackers have an inbound secret.`, { kind: row.kind });
    const secret = newSigningSecret();
    await replaceInboundSecret(ctx.db, id, sealSecret(ctx.keys, secret, inboundSecretContext(id)));
    ctx.logger.info({ connectionId: id }, 'integration inbound secret replaced');
    io.send({ url: ctx.inboundUrl(id), secret });
  });
