import type { Endpoint } from '../endpoint.ts';
import { admin } from './access.ts';

/**
 * Chat channels and issue trackers: connections, their activity, retries and issue links.
 * Admin API (admin-api-v1.md); request and response shapes live beside their entries.
 */
export const INTEGRATION_ADMIN_ENDPOINTS = {
  adminCreateIntegration: admin('POST', '/admin/v1/organizations/:orgId/integrations', 'integration', 'Admin'),
  adminListIntegrations: admin('GET', '/admin/v1/organizations/:orgId/integrations', 'integration', 'Admin'),
  adminUpdateIntegration: admin('PATCH', '/admin/v1/integrations/:id', 'integration', 'Admin'),
  adminDeleteIntegration: admin('DELETE', '/admin/v1/integrations/:id', 'integration', 'Admin'),
  adminTestIntegration: admin('POST', '/admin/v1/integrations/:id/test', 'integration', 'Admin'),
  adminListIntegrationActivity: admin('GET', '/admin/v1/integrations/:id/activity', 'integration', 'Admin'),
  adminRotateInboundSecret: admin('POST', '/admin/v1/integrations/:id/inbound-secret', 'integration', 'Admin'),
  adminRetryIntegration: admin('POST', '/admin/v1/integrations/:id/retry', 'integration', 'Admin'),
  adminListIssueLinks: admin('GET', '/admin/v1/issues/:id/links', 'integration', 'Member'),
} satisfies Record<string, Endpoint>;
