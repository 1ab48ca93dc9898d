import { adminOrgId, sendJsonText } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { listCampaignsJson } from '../storage/campaigns.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/organizations/:orgId/campaigns?status= : as the public list, for any organisation. */
export const register: Registration = (app, { db }) =>
  route(app, 'adminListCampaigns', async (req, res, io) => {
    const orgId = adminOrgId(req);
    const { status } = io.query;
    // Postgres writes the JSON text (storage/campaigns.ts), so it goes out as text, not through io.send.
    sendJsonText(req, res, 200, await listCampaignsJson(db, orgId, { status }));
  });
