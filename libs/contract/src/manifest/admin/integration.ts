import type { Endpoint } from '../endpoint.ts';
import { admin } from './access.ts';
import {
  AdminCreatedIntegrationSchema,
  AdminCreateIntegrationRequestSchema,
  AdminIntegrationActivityQuerySchema,
  AdminIntegrationActivitySchema,
  AdminIntegrationInboundSecretSchema,
  AdminIntegrationListSchema,
  AdminIntegrationRetrySchema,
  AdminIntegrationSchema,
  AdminIntegrationTestResultSchema,
  AdminIssueLinksSchema,
  AdminUpdateIntegrationRequestSchema,
} from './integration-shapes.ts';

/**
 * Chat channels and issue trackers: connections, their activity, retries and issue links.
 * Admin API (admin-api-v1.md); request and response shapes in integration-shapes.ts.
 */
export const INTEGRATION_ADMIN_ENDPOINTS = {
  adminCreateIntegration: {
    ...admin('POST', '/admin/v1/organizations/:orgId/integrations', 'integration', 'Admin'),
    request: { body: AdminCreateIntegrationRequestSchema },
    response: { status: 201, body: AdminCreatedIntegrationSchema },
  },
  adminListIntegrations: {
    ...admin('GET', '/admin/v1/organizations/:orgId/integrations', 'integration', 'Admin'),
    response: { status: 200, body: AdminIntegrationListSchema },
  },
  adminUpdateIntegration: {
    ...admin('PATCH', '/admin/v1/integrations/:id', 'integration', 'Admin'),
    request: { body: AdminUpdateIntegrationRequestSchema },
    response: { status: 200, body: AdminIntegrationSchema },
  },
  adminDeleteIntegration: {
    ...admin('DELETE', '/admin/v1/integrations/:id', 'integration', 'Admin'),
    response: { status: 204 },
  },
  adminTestIntegration: {
    ...admin('POST', '/admin/v1/integrations/:id/test', 'integration', 'Admin'),
    response: { status: 200, body: AdminIntegrationTestResultSchema },
  },
  adminListIntegrationActivity: {
    ...admin('GET', '/admin/v1/integrations/:id/activity', 'integration', 'Admin'),
    request: { query: AdminIntegrationActivityQuerySchema },
    response: { status: 200, body: AdminIntegrationActivitySchema },
  },
  adminRotateInboundSecret: {
    ...admin('POST', '/admin/v1/integrations/:id/inbound-secret', 'integration', 'Admin'),
    response: { status: 200, body: AdminIntegrationInboundSecretSchema },
  },
  adminRetryIntegration: {
    ...admin('POST', '/admin/v1/integrations/:id/retry', 'integration', 'Admin'),
    response: { status: 200, body: AdminIntegrationRetrySchema },
  },
  adminListIssueLinks: {
    ...admin('GET', '/admin/v1/issues/:id/links', 'integration', 'Member'),
    response: { status: 200, body: AdminIssueLinksSchema },
  },
} satisfies Record<string, Endpoint>;
