import { TRACKER_HOOK_BODY_LIMIT } from '@preflight/http';
import type { RouteSpec } from '../routing/route.ts';
import { auditLog } from './audit-log.ts';
import { createApiKey } from './create-api-key.ts';
import { createOperatorToken } from './create-operator-token.ts';
import { createOrganization } from './create-organization.ts';
import { listApiKeys } from './list-api-keys.ts';
import { listOperatorTokens } from './list-operator-tokens.ts';
import { listOrganizations } from './list-organizations.ts';
import { me } from './me.ts';
import { openapi } from './openapi.ts';
import { revokeApiKey } from './revoke-api-key.ts';
import { revokeOperatorToken } from './revoke-operator-token.ts';

/**
 * What the trackers sign and describe their hooks with (admin-api-v1.md, "Integrations"):
 * GitHub `X-Hub-Signature-256`, `X-GitHub-Event`, `X-GitHub-Delivery`, `X-GitHub-Hook-ID`;
 * Linear `Linear-Signature`, `Linear-Event`, `Linear-Delivery`; Jira `X-Hub-Signature`,
 * `X-Atlassian-Webhook-Identifier`, `X-Atlassian-Webhook-Retry`; and `User-Agent`, which names
 * the sender.
 */
const TRACKER_HOOK_HEADERS = [
  'x-hub-signature-256',
  'x-hub-signature',
  'x-github-event',
  'x-github-delivery',
  'x-github-hook-id',
  'linear-signature',
  'linear-event',
  'linear-delivery',
  'x-atlassian-webhook-identifier',
  'x-atlassian-webhook-retry',
  'user-agent',
] as const;

/**
 * Every route the gateway serves, in one place (docs/development.md, "Route table"). A new
 * route is one line. Admin routes forwarded with an `:orgId` get a 404 from the gateway when
 * the organisation does not exist, so services never need the identity schema.
 */
export const ROUTES: readonly RouteSpec[] = [
  // Public API (API keys)
  { method: 'GET', pattern: '/api/v1/openapi.json', auth: 'none', local: openapi },
  { method: 'GET', pattern: '/api/v1/me', auth: 'api-key', scope: 'any', local: me },
  { method: 'GET', pattern: '/api/v1/campaigns', auth: 'api-key', scope: 'read', upstream: 'campaign' },
  { method: 'GET', pattern: '/api/v1/campaigns/:id/issues', auth: 'api-key', scope: 'read', upstream: 'issue' },
  { method: 'POST', pattern: '/api/v1/campaigns/:id/issues', auth: 'api-key', scope: 'write', upstream: 'issue' },
  { method: 'GET', pattern: '/api/v1/issues/:id', auth: 'api-key', scope: 'read', upstream: 'issue' },
  { method: 'GET', pattern: '/api/v1/events', auth: 'api-key', scope: 'read', upstream: 'webhook' },
  { method: 'GET', pattern: '/api/v1/events/:eventKey/sample', auth: 'api-key', scope: 'read', upstream: 'webhook' },
  { method: 'GET', pattern: '/api/v1/webhooks', auth: 'api-key', scope: 'webhooks', upstream: 'webhook' },
  { method: 'POST', pattern: '/api/v1/webhooks', auth: 'api-key', scope: 'webhooks', upstream: 'webhook' },
  { method: 'DELETE', pattern: '/api/v1/webhooks/:id', auth: 'api-key', scope: 'webhooks', upstream: 'webhook' },

  // Admin API (operator token): organisations and keys, answered here
  { method: 'POST', pattern: '/admin/v1/organizations', auth: 'admin', local: createOrganization },
  { method: 'GET', pattern: '/admin/v1/organizations', auth: 'admin', local: listOrganizations },
  { method: 'POST', pattern: '/admin/v1/organizations/:orgId/api-keys', auth: 'admin', local: createApiKey },
  { method: 'GET', pattern: '/admin/v1/organizations/:orgId/api-keys', auth: 'admin', local: listApiKeys },
  { method: 'DELETE', pattern: '/admin/v1/organizations/:orgId/api-keys/:keyId', auth: 'admin', local: revokeApiKey },

  // Admin API: operator tokens and the audit log, answered here
  { method: 'POST', pattern: '/admin/v1/operator-tokens', auth: 'admin', local: createOperatorToken },
  { method: 'GET', pattern: '/admin/v1/operator-tokens', auth: 'admin', local: listOperatorTokens },
  { method: 'DELETE', pattern: '/admin/v1/operator-tokens/:id', auth: 'admin', local: revokeOperatorToken },
  { method: 'GET', pattern: '/admin/v1/audit-log', auth: 'admin', local: auditLog },

  // Admin API: sites, campaigns and issues, forwarded
  { method: 'POST', pattern: '/admin/v1/organizations/:orgId/sites', auth: 'admin', upstream: 'campaign' },
  { method: 'GET', pattern: '/admin/v1/organizations/:orgId/sites', auth: 'admin', upstream: 'campaign' },
  { method: 'GET', pattern: '/admin/v1/organizations/:orgId/campaigns', auth: 'admin', upstream: 'campaign' },
  { method: 'POST', pattern: '/admin/v1/sites/:siteId/campaigns', auth: 'admin', upstream: 'campaign' },
  { method: 'GET', pattern: '/admin/v1/campaigns/:id', auth: 'admin', upstream: 'campaign' },
  { method: 'POST', pattern: '/admin/v1/campaigns/:id/status', auth: 'admin', upstream: 'campaign' },
  { method: 'GET', pattern: '/admin/v1/campaigns/:id/policy', auth: 'admin', upstream: 'campaign' },
  { method: 'PUT', pattern: '/admin/v1/campaigns/:id/policy', auth: 'admin', upstream: 'campaign' },
  { method: 'POST', pattern: '/admin/v1/campaigns/:id/signers', auth: 'admin', upstream: 'campaign' },
  { method: 'GET', pattern: '/admin/v1/campaigns/:id/signers', auth: 'admin', upstream: 'campaign' },
  { method: 'DELETE', pattern: '/admin/v1/campaigns/:id/signers/:signerId', auth: 'admin', upstream: 'campaign' },
  { method: 'GET', pattern: '/admin/v1/campaigns/:id/report', auth: 'admin', upstream: 'campaign' },
  { method: 'POST', pattern: '/admin/v1/campaigns/:id/report/stamps', auth: 'admin', upstream: 'campaign' },
  { method: 'POST', pattern: '/admin/v1/campaigns/:id/report/waivers', auth: 'admin', upstream: 'campaign' },
  { method: 'POST', pattern: '/admin/v1/campaigns/:id/tasks', auth: 'admin', upstream: 'campaign' },
  { method: 'POST', pattern: '/admin/v1/campaigns/:id/testers', auth: 'admin', upstream: 'campaign' },
  { method: 'POST', pattern: '/admin/v1/campaign-testers/:campaignTesterId/tasks/:taskId/complete', auth: 'admin', upstream: 'campaign' },
  { method: 'POST', pattern: '/admin/v1/campaigns/:id/issues', auth: 'admin', upstream: 'issue' },
  { method: 'GET', pattern: '/admin/v1/campaigns/:id/issues', auth: 'admin', upstream: 'issue' },
  { method: 'GET', pattern: '/admin/v1/issues/:id', auth: 'admin', upstream: 'issue' },
  { method: 'POST', pattern: '/admin/v1/issues/:id/status', auth: 'admin', upstream: 'issue' },
  { method: 'POST', pattern: '/admin/v1/issues/:id/assignee', auth: 'admin', upstream: 'issue' },

  // Admin API: webhook settings, forwarded
  { method: 'POST', pattern: '/admin/v1/organizations/:orgId/webhooks', auth: 'admin', upstream: 'webhook' },
  { method: 'GET', pattern: '/admin/v1/organizations/:orgId/webhooks', auth: 'admin', upstream: 'webhook' },
  { method: 'POST', pattern: '/admin/v1/webhooks/:id/enable', auth: 'admin', upstream: 'webhook' },
  { method: 'GET', pattern: '/admin/v1/webhooks/:id/deliveries', auth: 'admin', upstream: 'delivery' },
  { method: 'POST', pattern: '/admin/v1/webhooks/:id/deliveries/:deliveryId/redeliver', auth: 'admin', upstream: 'delivery' },
  { method: 'POST', pattern: '/admin/v1/webhooks/:id/recover', auth: 'admin', upstream: 'delivery' },
  { method: 'POST', pattern: '/admin/v1/webhooks/:id/test', auth: 'admin', upstream: 'delivery' },
  { method: 'POST', pattern: '/admin/v1/webhooks/:id/secret/rotate', auth: 'admin', upstream: 'webhook' },

  // Admin API: chat channels and issue trackers, forwarded
  { method: 'POST', pattern: '/admin/v1/organizations/:orgId/integrations', auth: 'admin', upstream: 'integration' },
  { method: 'GET', pattern: '/admin/v1/organizations/:orgId/integrations', auth: 'admin', upstream: 'integration' },
  { method: 'PATCH', pattern: '/admin/v1/integrations/:id', auth: 'admin', upstream: 'integration' },
  { method: 'DELETE', pattern: '/admin/v1/integrations/:id', auth: 'admin', upstream: 'integration' },
  { method: 'POST', pattern: '/admin/v1/integrations/:id/test', auth: 'admin', upstream: 'integration' },
  { method: 'GET', pattern: '/admin/v1/integrations/:id/activity', auth: 'admin', upstream: 'integration' },
  { method: 'POST', pattern: '/admin/v1/integrations/:id/inbound-secret', auth: 'admin', upstream: 'integration' },
  { method: 'POST', pattern: '/admin/v1/integrations/:id/retry', auth: 'admin', upstream: 'integration' },
  { method: 'GET', pattern: '/admin/v1/issues/:id/links', auth: 'admin', upstream: 'integration' },

  // Inbound hooks of issue trackers: no API key (the integration service checks the provider's
  // signature over the raw body, forwarded byte for byte), limited per connection id.
  {
    method: 'POST',
    pattern: '/integrations/v1/hooks/:connectionId',
    auth: 'none',
    limitBy: 'connectionId',
    upstream: 'integration',
    forwardHeaders: TRACKER_HOOK_HEADERS,
    bodyLimitBytes: TRACKER_HOOK_BODY_LIMIT,
  },
];
