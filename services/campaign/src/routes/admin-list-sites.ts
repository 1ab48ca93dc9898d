import { adminOrgId } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { toAdminSite } from '../views/site-view.ts';
import { listSites } from '../storage/sites.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/organizations/:orgId/sites: the organisation's sites, newest first. */
export const register: Registration = (app, { db }) =>
  route(app, 'adminListSites', async (req, _res, io) => {
    const orgId = adminOrgId(req);
    io.send((await listSites(db, orgId)).map(toAdminSite));
  });
