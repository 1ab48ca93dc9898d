import { sendJson } from '@preflight/http';
import { listApiKeys as listForOrg } from '../storage/api-keys.ts';
import type { LocalEndpoint } from '../routing/route.ts';
import { existingOrgId } from './org-param.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** GET /admin/v1/organizations/{orgId}/api-keys → 200, revoked keys included, never a key or hash. */
export const listApiKeys: LocalEndpoint = {
  async handle({ req, res, params, deps }) {
    const orgId = await existingOrgId(deps.db, params.orgId);
    const keys = await listForOrg(deps.db, orgId);
    sendJson(
      req,
      res,
      200,
      keys.map((k) => ({
        id: k.id,
        name: k.name,
        scopes: k.scopes,
        prefix: k.prefix,
        lastFour: k.lastFour,
        createdAt: k.createdAt.toISOString(),
        lastUsedAt: iso(k.lastUsedAt),
        revokedAt: iso(k.revokedAt),
      })),
    );
  },
};
