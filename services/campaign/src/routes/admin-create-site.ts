import { z } from 'zod';
import { httpUrl, requiredText } from '@preflight/contract';
import { adminOrgId, parseBody, sendJson } from '@preflight/http';
import { toAdminSite } from '../views/site-view.ts';
import { insertSite } from '../storage/sites.ts';
import type { Registration } from './context.ts';

const MAX_SITE_NAME = 200;

const CreateSiteRequestSchema = z.strictObject({
  name: requiredText(MAX_SITE_NAME),
  url: httpUrl()
    .nullish()
    .transform((v) => v ?? null),
});

/** POST /admin/v1/organizations/:orgId/sites {name, url?}. The gateway has checked the organisation exists. */
export const register: Registration = (app, { db }) => {
  app.post('/admin/v1/organizations/:orgId/sites', async (req, res) => {
    const orgId = adminOrgId(req);
    const body = parseBody(CreateSiteRequestSchema, req.body);
    const site = await insertSite(db, { orgId, name: body.name, url: body.url });
    sendJson(req, res, 201, toAdminSite(site));
  });
};
