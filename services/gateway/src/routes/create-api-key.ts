import { z } from 'zod';
import { requiredText, ScopeSchema } from '@preflight/contract';
import { parseBody, sendJson } from '@preflight/http';
import { generateApiKey } from '../auth/api-key-format.ts';
import { insertApiKey } from '../storage/api-keys.ts';
import type { LocalEndpoint } from '../routing/route.ts';
import { MAX_NAME } from './create-organization.ts';
import { existingOrgId } from './org-param.ts';

const CreateApiKeySchema = z.strictObject({
  name: requiredText(MAX_NAME),
  // May be empty: such a key can only call GET /api/v1/me.
  scopes: z
    .array(ScopeSchema, { error: (issue) => (issue.input === undefined ? 'Is required.' : 'Must be an array of scopes.') })
    .refine((scopes) => new Set(scopes).size === scopes.length, 'Must not list a scope twice.'),
  environment: z.enum(['live', 'test'], { error: 'Must be one of: live, test.' }).optional(),
});

/**
 * POST /admin/v1/organizations/{orgId}/api-keys → 201 {id, name, scopes, key, createdAt}.
 * The full key exists only in this response; we keep its hash.
 */
export const createApiKey: LocalEndpoint = {
  async handle({ req, res, params, deps }) {
    const orgId = await existingOrgId(deps.db, params.orgId);
    const input = parseBody(CreateApiKeySchema, req.body);
    const generated = generateApiKey(input.environment ?? deps.config.API_KEY_ENVIRONMENT);
    const record = await insertApiKey(deps.db, {
      orgId,
      name: input.name,
      scopes: input.scopes,
      environment: input.environment ?? deps.config.API_KEY_ENVIRONMENT,
      keyHash: generated.hash,
      prefix: generated.prefix,
      lastFour: generated.lastFour,
    });
    sendJson(req, res, 201, {
      id: record.id,
      name: record.name,
      scopes: record.scopes,
      key: generated.key,
      createdAt: record.createdAt.toISOString(),
    });
  },
};
