import { insertOrganization } from '../storage/organizations.ts';
import { localEndpoint } from '../routing/route.ts';
import { organizationView } from './views.ts';

/** POST /admin/v1/organizations → 201 {id, name, createdAt}. */
export const createOrganization = localEndpoint('adminCreateOrganization', {
  async handle({ res, deps }, io) {
    const { name } = io.body;
    const org = await insertOrganization(deps.db, name);
    res.locals.auditOrgId = org.id; // the audit entry names the organisation it created
    io.send(organizationView(org));
  },
});
