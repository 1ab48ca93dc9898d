import type { ResponseOf } from '@preflight/contract';
import type { ApiKeyRecord } from '../storage/api-keys.ts';
import type { AuditEntry } from '../storage/audit-log.ts';
import type { OperatorTokenRecord } from '../storage/operator-tokens.ts';
import type { Organization } from '../storage/organizations.ts';

// The gateway's records as the admin API shows them (libs/contract, admin/gateway-shapes.ts).

/** An optional time as the API shows it: ISO-8601, or null. */
export const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const organizationView = (org: Organization): ResponseOf<'adminGetOrganization'> => ({
  id: org.id,
  name: org.name,
  createdAt: org.createdAt.toISOString(),
});

export const apiKeyView = (k: ApiKeyRecord): ResponseOf<'adminListApiKeys'>[number] => ({
  id: k.id,
  name: k.name,
  scopes: k.scopes,
  prefix: k.prefix,
  lastFour: k.lastFour,
  createdAt: k.createdAt.toISOString(),
  lastUsedAt: iso(k.lastUsedAt),
  revokedAt: iso(k.revokedAt),
});

export const operatorTokenView = (t: OperatorTokenRecord): ResponseOf<'adminListOperatorTokens'>[number] => ({
  id: t.id,
  name: t.name,
  scopes: t.scopes,
  prefix: t.prefix,
  lastFour: t.lastFour,
  createdAt: t.createdAt.toISOString(),
  expiresAt: iso(t.expiresAt),
  lastUsedAt: iso(t.lastUsedAt),
  revokedAt: iso(t.revokedAt),
});

export const auditEntryView = (e: AuditEntry): ResponseOf<'adminAuditLog'>[number] => ({
  at: e.at.toISOString(),
  actor: e.actor,
  method: e.method,
  path: e.path,
  status: e.status,
  orgId: e.orgId,
  traceId: e.traceId,
});
