import { adminOrgId, sendJson } from '@preflight/http';
import { toAdminSite } from '../views/site-view.ts';
import { listSites } from '../storage/sites.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/organizations/:orgId/sites: the organisation's sites, newest first. */
export const register: Registration = (app, { db }) => {
  app.get('/admin/v1/organizations/:orgId/sites', async (req, res) => {
    const orgId = adminOrgId(req);
    const rows = await listSites(db, orgId);
    sendJson(req, res, 200, rows.map(toAdminSite));
  });
};
