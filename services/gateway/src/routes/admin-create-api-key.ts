import { generateApiKey } from '../auth/api-key-format.ts';
import { insertApiKey } from '../storage/api-keys.ts';
import { localEndpoint } from '../routing/route.ts';
import { existingOrgId } from './org-param.ts';

/**
 * POST /admin/v1/organizations/{orgId}/api-keys → 201 {id, name, scopes, key, createdAt}.
 * The full key exists only in this response; we keep its hash.
 */
export const createApiKey = localEndpoint('adminCreateApiKey', {
  async handle({ params, deps }, io) {
    const orgId = await existingOrgId(deps.db, params.orgId);
    const input = io.body;
    const environment = input.environment ?? deps.config.API_KEY_ENVIRONMENT;
    const generated = generateApiKey(environment);
    const record = await insertApiKey(deps.db, {
      orgId,
      name: input.name,
      scopes: input.scopes,
      environment,
      keyHash: generated.hash,
      prefix: generated.prefix,
      lastFour: generated.lastFour,
    });
    io.send({
      id: record.id,
      name: record.name,
      scopes: record.scopes,
      key: generated.key,
      createdAt: record.createdAt.toISOString(),
    });
  },
});
