import { randomUUID } from 'node:crypto';
import { adminOrgId, validationFailed } from '@preflight/http';
import { newSigningSecret, sealSecret } from '@preflight/secret-box';
import { route } from '@preflight/service-kit';
import { checkCreateRequest } from '../domain/connection-request.ts';
import { credentialsContext, inboundSecretContext } from '../domain/sealing.ts';
import { isTrackerKind } from '../providers/index.ts';
import { insertConnection } from '../storage/connections.ts';
import { toCreatedConnection } from '../views/connection-view.ts';
import { connectionUrlErrors } from './connection-urls.ts';
import type { Registration } from './context.ts';

/**
 * POST /admin/v1/organizations/:orgId/integrations: a chat channel or a tracker. Credentials
 * are sealed and never answered; a tracker gets its inbound URL and secret, shown this once.
 */
export const register: Registration = (app, ctx) =>
  route(app, 'adminCreateIntegration', async (req, _res, io) => {
    const orgId = adminOrgId(req);
    const body = checkCreateRequest(io.body);
    const urlErrors = await connectionUrlErrors(ctx, body.kind, body);
    if (Object.keys(urlErrors).length > 0) throw validationFailed(urlErrors);

    const id = randomUUID();
    const inboundSecret = isTrackerKind(body.kind) ? newSigningSecret() : null;
    const row = await insertConnection(ctx.db, {
      id,
      orgId,
      kind: body.kind,
      name: body.name,
      config: body.config,
      credentials: sealSecret(ctx.keys, JSON.stringify(body.credentials), credentialsContext(id)),
      inbound: inboundSecret ? sealSecret(ctx.keys, inboundSecret, inboundSecretContext(id)) : null,
      campaignIds: body.campaignIds,
      events: body.events,
      minSeverity: body.minSeverity,
    });
    ctx.logger.info({ connectionId: id, orgId, kind: body.kind }, 'integration connected');
    io.send(toCreatedConnection(row, inboundSecret ? { url: ctx.inboundUrl(id), secret: inboundSecret } : null));
  });
