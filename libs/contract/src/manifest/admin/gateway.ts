import type { Endpoint } from '../endpoint.ts';
import { admin, operator } from './access.ts';

/**
 * Organisations, API keys, operator tokens and the audit log, answered by the gateway.
 * Admin API (admin-api-v1.md); request and response shapes live beside their entries.
 */
export const GATEWAY_ADMIN_ENDPOINTS = {
  adminCreateOrganization: operator('POST', '/admin/v1/organizations', 'gateway'),
  adminListOrganizations: operator('GET', '/admin/v1/organizations', 'gateway'),
  adminGetOrganization: admin('GET', '/admin/v1/organizations/:orgId', 'gateway', 'Member'),
  adminCreateApiKey: admin('POST', '/admin/v1/organizations/:orgId/api-keys', 'gateway', 'Admin'),
  adminListApiKeys: admin('GET', '/admin/v1/organizations/:orgId/api-keys', 'gateway', 'Admin'),
  adminRevokeApiKey: admin('DELETE', '/admin/v1/organizations/:orgId/api-keys/:keyId', 'gateway', 'Admin'),
  adminCreateOperatorToken: operator('POST', '/admin/v1/operator-tokens', 'gateway'),
  adminListOperatorTokens: operator('GET', '/admin/v1/operator-tokens', 'gateway'),
  adminRevokeOperatorToken: operator('DELETE', '/admin/v1/operator-tokens/:id', 'gateway'),
  adminAuditLog: operator('GET', '/admin/v1/audit-log', 'gateway'),
} satisfies Record<string, Endpoint>;
