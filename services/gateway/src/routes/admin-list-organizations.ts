import { listOrganizations as listAll } from '../storage/organizations.ts';
import { localEndpoint } from '../routing/route.ts';
import { organizationView } from './views.ts';

/** GET /admin/v1/organizations → 200 [{id, name, createdAt}], oldest first. */
export const listOrganizations = localEndpoint('adminListOrganizations', {
  async handle({ deps }, io) {
    io.send((await listAll(deps.db)).map(organizationView));
  },
});
