import { z } from 'zod';
import type { Endpoint } from '../endpoint.ts';
import { admin, operator } from './access.ts';
import {
  AdminApiKeySchema,
  AdminAuditEntrySchema,
  AdminAuditLogQuerySchema,
  AdminCreateApiKeyRequestSchema,
  AdminCreatedApiKeySchema,
  AdminCreatedOperatorTokenSchema,
  AdminCreateOperatorTokenRequestSchema,
  AdminCreateOrganizationRequestSchema,
  AdminOperatorTokenSchema,
  AdminOrganizationSchema,
} from './gateway-shapes.ts';

/**
 * Organisations, API keys, operator tokens and the audit log, answered by the gateway.
 * Admin API (admin-api-v1.md); request and response shapes in gateway-shapes.ts.
 */
export const GATEWAY_ADMIN_ENDPOINTS = {
  adminCreateOrganization: {
    ...operator('POST', '/admin/v1/organizations', 'gateway'),
    request: { body: AdminCreateOrganizationRequestSchema },
    response: { status: 201, body: AdminOrganizationSchema },
  },
  adminListOrganizations: {
    ...operator('GET', '/admin/v1/organizations', 'gateway'),
    response: { status: 200, body: z.array(AdminOrganizationSchema) },
  },
  adminGetOrganization: {
    ...admin('GET', '/admin/v1/organizations/:orgId', 'gateway', 'Member'),
    response: { status: 200, body: AdminOrganizationSchema },
  },
  adminCreateApiKey: {
    ...admin('POST', '/admin/v1/organizations/:orgId/api-keys', 'gateway', 'Admin'),
    request: { body: AdminCreateApiKeyRequestSchema },
    response: { status: 201, body: AdminCreatedApiKeySchema },
  },
  adminListApiKeys: {
    ...admin('GET', '/admin/v1/organizations/:orgId/api-keys', 'gateway', 'Admin'),
    response: { status: 200, body: z.array(AdminApiKeySchema) },
  },
  adminRevokeApiKey: {
    ...admin('DELETE', '/admin/v1/organizations/:orgId/api-keys/:keyId', 'gateway', 'Admin'),
    response: { status: 204 },
  },
  adminCreateOperatorToken: {
    ...operator('POST', '/admin/v1/operator-tokens', 'gateway'),
    request: { body: AdminCreateOperatorTokenRequestSchema },
    response: { status: 201, body: AdminCreatedOperatorTokenSchema },
  },
  adminListOperatorTokens: {
    ...operator('GET', '/admin/v1/operator-tokens', 'gateway'),
    response: { status: 200, body: z.array(AdminOperatorTokenSchema) },
  },
  adminRevokeOperatorToken: {
    ...operator('DELETE', '/admin/v1/operator-tokens/:id', 'gateway'),
    response: { status: 204 },
  },
  adminAuditLog: {
    ...operator('GET', '/admin/v1/audit-log', 'gateway'),
    request: { query: AdminAuditLogQuerySchema },
    response: { status: 200, body: z.array(AdminAuditEntrySchema) },
  },
} satisfies Record<string, Endpoint>;
