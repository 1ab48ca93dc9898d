import { z } from 'zod';
import type { Endpoint } from '../endpoint.ts';
import { admin, operator } from './access.ts';
import * as shapes from './gateway-shapes.ts';

/**
 * Organisations, API keys, operator tokens and the audit log, answered by the gateway.
 * Admin API (admin-api-v1.md); request and response shapes in gateway-shapes.ts.
 */
export const GATEWAY_ADMIN_ENDPOINTS = {
  adminCreateOrganization: operator('POST', '/admin/v1/organizations', 'gateway', { request: { body: shapes.AdminCreateOrganizationRequestSchema }, response: { status: 201, body: shapes.AdminOrganizationSchema } }),
  adminListOrganizations: operator('GET', '/admin/v1/organizations', 'gateway', { response: { status: 200, body: z.array(shapes.AdminOrganizationSchema) } }),
  adminGetOrganization: admin('GET', '/admin/v1/organizations/:orgId', 'gateway', 'Member', { response: { status: 200, body: shapes.AdminOrganizationSchema } }),
  adminCreateApiKey: admin('POST', '/admin/v1/organizations/:orgId/api-keys', 'gateway', 'Admin', { request: { body: shapes.AdminCreateApiKeyRequestSchema }, response: { status: 201, body: shapes.AdminCreatedApiKeySchema } }),
  adminListApiKeys: admin('GET', '/admin/v1/organizations/:orgId/api-keys', 'gateway', 'Admin', { response: { status: 200, body: z.array(shapes.AdminApiKeySchema) } }),
  adminRevokeApiKey: admin('DELETE', '/admin/v1/organizations/:orgId/api-keys/:keyId', 'gateway', 'Admin', { response: { status: 204 } }),
  adminCreateOperatorToken: operator('POST', '/admin/v1/operator-tokens', 'gateway', { request: { body: shapes.AdminCreateOperatorTokenRequestSchema }, response: { status: 201, body: shapes.AdminCreatedOperatorTokenSchema } }),
  adminListOperatorTokens: operator('GET', '/admin/v1/operator-tokens', 'gateway', { response: { status: 200, body: z.array(shapes.AdminOperatorTokenSchema) } }),
  adminRevokeOperatorToken: operator('DELETE', '/admin/v1/operator-tokens/:id', 'gateway', { response: { status: 204 } }),
  adminAuditLog: operator('GET', '/admin/v1/audit-log', 'gateway', { request: { query: shapes.AdminAuditLogQuerySchema }, response: { status: 200, body: z.array(shapes.AdminAuditEntrySchema) } }),
} satisfies Record<string, Endpoint>;
