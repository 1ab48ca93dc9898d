import { z } from 'zod';
import { ScopeSchema } from '../../enums.ts';
import { requiredText } from '../../requests.ts';

/**
 * Request and response shapes of the gateway's admin entries (admin/gateway.ts; admin-api-v1.md,
 * "Organisations and API keys" and "Operator tokens and the audit log"). Every listed field is
 * always present; a nullable one is null, never omitted.
 */

const uuid = z.uuid();
const dateTime = z.iso.datetime({ offset: true });

/** The longest name of an organisation, API key or operator token. */
const MAX_NAME = 200;
const AUDIT_LOG_MAX_LIMIT = 200;
const AUDIT_LOG_DEFAULT_LIMIT = 50;

export const OPERATOR_SCOPES = ['admin:read', 'admin:write'] as const;
export type OperatorScope = (typeof OPERATOR_SCOPES)[number];

const scopeList = <T extends z.ZodType>(scope: T) =>
  z.array(scope, { error: (issue) => (issue.input === undefined ? 'Is required.' : 'Must be an array of scopes.') });

const noRepeats = (scopes: readonly string[]) => new Set(scopes).size === scopes.length;

export const AdminCreateOrganizationRequestSchema = z.strictObject({ name: requiredText(MAX_NAME) });

export const AdminOrganizationSchema = z.object({ id: uuid, name: z.string(), createdAt: dateTime });

export const AdminCreateApiKeyRequestSchema = z.strictObject({
  name: requiredText(MAX_NAME),
  // May be empty: such a key can only call GET /api/v1/me.
  scopes: scopeList(ScopeSchema).refine(noRepeats, 'Must not list a scope twice.'),
  environment: z.enum(['live', 'test'], { error: 'Must be one of: live, test.' }).optional(),
});

/** The answer of a key's creation: `key` is the full key, in this answer only. */
export const AdminCreatedApiKeySchema = z.object({ id: uuid, name: z.string(), scopes: z.array(ScopeSchema), key: z.string(), createdAt: dateTime });

/** A key as listed, revoked ones included: never the key or its hash. */
export const AdminApiKeySchema = z.object({
  id: uuid,
  name: z.string(),
  scopes: z.array(ScopeSchema),
  prefix: z.string(),
  lastFour: z.string(),
  createdAt: dateTime,
  lastUsedAt: dateTime.nullable(),
  revokedAt: dateTime.nullable(),
});

export const AdminCreateOperatorTokenRequestSchema = z.strictObject({
  name: requiredText(MAX_NAME),
  scopes: scopeList(z.enum(OPERATOR_SCOPES, { error: 'Must be one of: admin:read, admin:write.' }))
    .min(1, 'Must name at least one scope.')
    .refine(noRepeats, 'Must not list a scope twice.'),
  expiresAt: z.iso.datetime({ offset: true, error: 'Must be a date-time, e.g. 2026-01-31T12:00:00Z.' }).nullable().optional(),
});

const OperatorScopeSchema = z.enum(OPERATOR_SCOPES);

/** The answer of a token's creation: `token` is the full token, in this answer only. */
export const AdminCreatedOperatorTokenSchema = z.object({
  id: uuid,
  name: z.string(),
  scopes: z.array(OperatorScopeSchema),
  token: z.string(),
  createdAt: dateTime,
  expiresAt: dateTime.nullable(),
});

/** A token as listed, revoked and expired ones included: never the token or its hash. */
export const AdminOperatorTokenSchema = z.object({
  id: uuid,
  name: z.string(),
  scopes: z.array(OperatorScopeSchema),
  prefix: z.string(),
  lastFour: z.string(),
  createdAt: dateTime,
  expiresAt: dateTime.nullable(),
  lastUsedAt: dateTime.nullable(),
  revokedAt: dateTime.nullable(),
});

/** `limit` and `before` of the audit log: a bad one is a 400 with an `errors` map, never clamped. */
export const AdminAuditLogQuerySchema = z.object({
  limit: z
    .string({ error: 'limit must be given once.' })
    .regex(/^\d+$/, 'limit must be a whole number.')
    .transform(Number)
    .pipe(z.number().min(1, 'limit must be at least 1.').max(AUDIT_LOG_MAX_LIMIT, `limit must be at most ${AUDIT_LOG_MAX_LIMIT}.`))
    .default(AUDIT_LOG_DEFAULT_LIMIT),
  before: z.iso.datetime({ offset: true, error: 'before must be a date-time, e.g. 2026-01-31T12:00:00Z.' }).optional(),
});

/** Who made an admin write: the bootstrap token, an operator token, or a console member. */
export const AUDIT_ACTOR_KINDS = ['bootstrap', 'operator-token', 'member'] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

/** One admin write the gateway answered with a 2xx; `actor.id` and `name` are null for the bootstrap token. */
export const AdminAuditEntrySchema = z.object({
  at: dateTime,
  actor: z.object({ kind: z.enum(AUDIT_ACTOR_KINDS), id: z.string().nullable(), name: z.string().nullable() }),
  method: z.string(),
  path: z.string(),
  status: z.number().int(),
  orgId: uuid.nullable(),
  traceId: z.string().nullable(),
});
