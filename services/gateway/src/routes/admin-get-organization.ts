import { notFound, pathId } from '@preflight/http';
import { findOrganization } from '../storage/organizations.ts';
import { localEndpoint } from '../routing/route.ts';
import { organizationView } from './views.ts';

/**
 * GET /admin/v1/organizations/{orgId} → 200 {id, name, createdAt}: the operator reads any, a
 * console member their own (the console shows the name; the identity schema is the gateway's).
 */
export const getOrganization = localEndpoint('adminGetOrganization', {
  async handle({ params, deps }, io) {
    const orgId = pathId(params.orgId, 'organization');
    const org = await findOrganization(deps.db, orgId);
    if (!org) throw notFound('organization', orgId);
    io.send(organizationView(org));
  },
});
