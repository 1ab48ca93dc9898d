import { notFound, pathId, sendJson } from '@preflight/http';
import { findOrganization } from '../storage/organizations.ts';
import type { LocalEndpoint } from '../routing/route.ts';

/**
 * GET /admin/v1/organizations/{orgId} → 200 {id, name, createdAt}: the operator reads any, a
 * console member their own (the console shows the name; the identity schema is the gateway's).
 */
export const getOrganization: LocalEndpoint = {
  async handle({ req, res, params, deps }) {
    const orgId = pathId(params.orgId, 'organization');
    const org = await findOrganization(deps.db, orgId);
    if (!org) throw notFound('organization', orgId);
    sendJson(req, res, 200, { id: org.id, name: org.name, createdAt: org.createdAt.toISOString() });
  },
};
