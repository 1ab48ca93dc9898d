import { listApiKeys as listForOrg } from '../storage/api-keys.ts';
import { localEndpoint } from '../routing/route.ts';
import { existingOrgId } from './org-param.ts';
import { apiKeyView } from './views.ts';

/** GET /admin/v1/organizations/{orgId}/api-keys → 200, revoked keys included, never a key or hash. */
export const listApiKeys = localEndpoint('adminListApiKeys', {
  async handle({ params, deps }, io) {
    const orgId = await existingOrgId(deps.db, params.orgId);
    io.send((await listForOrg(deps.db, orgId)).map(apiKeyView));
  },
});
