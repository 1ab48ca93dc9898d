import { sendJson } from '@preflight/http';
import { listOrganizations as listAll } from '../storage/organizations.ts';
import type { LocalEndpoint } from '../routing/route.ts';

/** GET /admin/v1/organizations → 200 [{id, name, createdAt}], oldest first. */
export const listOrganizations: LocalEndpoint = {
  async handle({ req, res, deps }) {
    const orgs = await listAll(deps.db);
    sendJson(req, res, 200, orgs.map((o) => ({ id: o.id, name: o.name, createdAt: o.createdAt.toISOString() })));
  },
};
