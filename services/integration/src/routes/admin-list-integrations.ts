import { adminOrgId, sendJson } from '@preflight/http';
import { listConnections } from '../storage/connections.ts';
import { toConnection } from '../views/connection-view.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/organizations/:orgId/integrations: newest first, without credentials or inbound secrets. */
export const register: Registration = (app, ctx) => {
  app.get('/admin/v1/organizations/:orgId/integrations', async (req, res) => {
    const orgId = adminOrgId(req);
    const rows = await listConnections(ctx.db, orgId);
    sendJson(req, res, 200, rows.map((row) => toConnection(row, ctx.inboundUrl)));
  });
};
