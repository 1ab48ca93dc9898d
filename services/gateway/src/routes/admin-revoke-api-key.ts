import { notFound, pathId } from '@preflight/http';
import { revokeApiKey as revoke } from '../storage/api-keys.ts';
import { localEndpoint } from '../routing/route.ts';
import { existingOrgId } from './org-param.ts';

/**
 * DELETE /admin/v1/organizations/{orgId}/api-keys/{keyId} → 204, also for a key already
 * revoked. Postgres first (the truth every replica falls back to), then the shared cache, and
 * only then the answer: the key's next request is refused on every replica.
 */
export const revokeApiKey = localEndpoint('adminRevokeApiKey', {
  async handle({ res, params, deps }) {
    const orgId = await existingOrgId(deps.db, params.orgId);
    const keyId = pathId(params.keyId, 'API key');
    const revoked = await revoke(deps.db, orgId, keyId);
    if (!revoked) throw notFound('API key', keyId);
    await deps.keyCache.markRevoked(revoked.keyHash);
    res.status(204).end(); // no body: nothing for io.send to check
  },
});
