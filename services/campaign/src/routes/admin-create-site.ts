import { adminOrgId } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { toAdminSite } from '../views/site-view.ts';
import { insertSite } from '../storage/sites.ts';
import type { Registration } from './context.ts';

/** POST /admin/v1/organizations/:orgId/sites {name, url?}. The gateway has checked the organisation exists. */
export const register: Registration = (app, { db }) =>
  route(app, 'adminCreateSite', async (req, _res, io) => {
    const orgId = adminOrgId(req);
    const { name, url } = io.body;
    io.send(toAdminSite(await insertSite(db, { orgId, name, url })));
  });
