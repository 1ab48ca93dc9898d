import { sendJson } from '@preflight/http';
import { listOperatorTokens as listAll } from '../storage/operator-tokens.ts';
import type { LocalEndpoint } from '../routing/route.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * GET /admin/v1/operator-tokens → 200, oldest first, revoked and expired tokens included, never
 * a token or its hash: `{id, name, scopes, prefix, lastFour, createdAt, expiresAt, lastUsedAt, revokedAt}`.
 */
export const listOperatorTokens: LocalEndpoint = {
  async handle({ req, res, deps }) {
    const tokens = await listAll(deps.db);
    sendJson(
      req,
      res,
      200,
      tokens.map((t) => ({
        id: t.id,
        name: t.name,
        scopes: t.scopes,
        prefix: t.prefix,
        lastFour: t.lastFour,
        createdAt: t.createdAt.toISOString(),
        expiresAt: iso(t.expiresAt),
        lastUsedAt: iso(t.lastUsedAt),
        revokedAt: iso(t.revokedAt),
      })),
    );
  },
};
