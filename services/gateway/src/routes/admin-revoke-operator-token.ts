import { notFound, pathId } from '@preflight/http';
import { revokeOperatorToken as revoke } from '../storage/operator-tokens.ts';
import { localEndpoint } from '../routing/route.ts';

/**
 * DELETE /admin/v1/operator-tokens/{id} → 204, also for a token already revoked, the caller's
 * own included. As for API keys: Postgres first, then the cache's tombstone, then the answer,
 * so the token's next request is a 401 on every replica.
 */
export const revokeOperatorToken = localEndpoint('adminRevokeOperatorToken', {
  async handle({ res, params, deps }) {
    const id = pathId(params.id, 'operator token');
    const revoked = await revoke(deps.db, id);
    if (!revoked) throw notFound('operator token', id);
    await deps.operatorCache.markRevoked(revoked.tokenHash);
    res.status(204).end(); // no body: nothing for io.send to check
  },
});
