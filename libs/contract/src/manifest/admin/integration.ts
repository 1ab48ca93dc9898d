import type { Endpoint } from '../endpoint.ts';
import { admin } from './access.ts';
import * as shapes from './integration-shapes.ts';

/**
 * Chat channels and issue trackers: connections, their activity, retries and issue links.
 * Admin API (admin-api-v1.md); request and response shapes in integration-shapes.ts.
 */
export const INTEGRATION_ADMIN_ENDPOINTS = {
  adminCreateIntegration: admin('POST', '/admin/v1/organizations/:orgId/integrations', 'integration', 'Admin', { request: { body: shapes.AdminCreateIntegrationRequestSchema }, response: { status: 201, body: shapes.AdminCreatedIntegrationSchema } }),
  adminListIntegrations: admin('GET', '/admin/v1/organizations/:orgId/integrations', 'integration', 'Admin', { response: { status: 200, body: shapes.AdminIntegrationListSchema } }),
  adminUpdateIntegration: admin('PATCH', '/admin/v1/integrations/:id', 'integration', 'Admin', { request: { body: shapes.AdminUpdateIntegrationRequestSchema }, response: { status: 200, body: shapes.AdminIntegrationSchema } }),
  adminDeleteIntegration: admin('DELETE', '/admin/v1/integrations/:id', 'integration', 'Admin', { response: { status: 204 } }),
  adminTestIntegration: admin('POST', '/admin/v1/integrations/:id/test', 'integration', 'Admin', { response: { status: 200, body: shapes.AdminIntegrationTestResultSchema } }),
  adminListIntegrationActivity: admin('GET', '/admin/v1/integrations/:id/activity', 'integration', 'Admin', { request: { query: shapes.AdminIntegrationActivityQuerySchema }, response: { status: 200, body: shapes.AdminIntegrationActivitySchema } }),
  adminRotateInboundSecret: admin('POST', '/admin/v1/integrations/:id/inbound-secret', 'integration', 'Admin', { response: { status: 200, body: shapes.AdminIntegrationInboundSecretSchema } }),
  adminRetryIntegration: admin('POST', '/admin/v1/integrations/:id/retry', 'integration', 'Admin', { response: { status: 200, body: shapes.AdminIntegrationRetrySchema } }),
  adminListIssueLinks: admin('GET', '/admin/v1/issues/:id/links', 'integration', 'Member', { response: { status: 200, body: shapes.AdminIssueLinksSchema } }),
} satisfies Record<string, Endpoint>;
