import { adminOrgId } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { listConnections } from '../storage/connections.ts';
import { toConnection } from '../views/connection-view.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/organizations/:orgId/integrations: newest first, without credentials or inbound secrets. */
export const register: Registration = (app, ctx) =>
  route(app, 'adminListIntegrations', async (req, _res, io) => {
    const orgId = adminOrgId(req);
    const rows = await listConnections(ctx.db, orgId);
    io.send(rows.map((row) => toConnection(row, ctx.inboundUrl)));
  });
