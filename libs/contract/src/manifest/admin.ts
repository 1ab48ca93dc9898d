import type { Endpoint, HttpMethod, ServiceName } from './endpoint.ts';

/**
 * The admin API (admin-api-v1.md), reached through the gateway with an operator token, and the
 * trackers' inbound hooks. Request and response shapes of admin endpoints are still declared in
 * the owning services' route files; the manifest says where each endpoint lives and who may call.
 */
const admin = <O extends ServiceName>(method: HttpMethod, path: string, owner: O) => ({ method, path, owner, auth: 'admin' as const });

export const ADMIN_ENDPOINTS = {
  // Organisations and keys, answered by the gateway
  adminCreateOrganization: admin('POST', '/admin/v1/organizations', 'gateway'),
  adminListOrganizations: admin('GET', '/admin/v1/organizations', 'gateway'),
  adminCreateApiKey: admin('POST', '/admin/v1/organizations/:orgId/api-keys', 'gateway'),
  adminListApiKeys: admin('GET', '/admin/v1/organizations/:orgId/api-keys', 'gateway'),
  adminRevokeApiKey: admin('DELETE', '/admin/v1/organizations/:orgId/api-keys/:keyId', 'gateway'),

  // Operator tokens and the audit log, answered by the gateway
  adminCreateOperatorToken: admin('POST', '/admin/v1/operator-tokens', 'gateway'),
  adminListOperatorTokens: admin('GET', '/admin/v1/operator-tokens', 'gateway'),
  adminRevokeOperatorToken: admin('DELETE', '/admin/v1/operator-tokens/:id', 'gateway'),
  adminAuditLog: admin('GET', '/admin/v1/audit-log', 'gateway'),

  // Sites, campaigns, sign-off and testers
  adminCreateSite: admin('POST', '/admin/v1/organizations/:orgId/sites', 'campaign'),
  adminListSites: admin('GET', '/admin/v1/organizations/:orgId/sites', 'campaign'),
  adminListCampaigns: admin('GET', '/admin/v1/organizations/:orgId/campaigns', 'campaign'),
  adminCreateCampaign: admin('POST', '/admin/v1/sites/:siteId/campaigns', 'campaign'),
  adminGetCampaign: admin('GET', '/admin/v1/campaigns/:id', 'campaign'),
  adminChangeCampaignStatus: admin('POST', '/admin/v1/campaigns/:id/status', 'campaign'),
  adminGetPolicy: admin('GET', '/admin/v1/campaigns/:id/policy', 'campaign'),
  adminReplacePolicy: admin('PUT', '/admin/v1/campaigns/:id/policy', 'campaign'),
  adminAddSigner: admin('POST', '/admin/v1/campaigns/:id/signers', 'campaign'),
  adminListSigners: admin('GET', '/admin/v1/campaigns/:id/signers', 'campaign'),
  adminRemoveSigner: admin('DELETE', '/admin/v1/campaigns/:id/signers/:signerId', 'campaign'),
  adminGetReport: admin('GET', '/admin/v1/campaigns/:id/report', 'campaign'),
  adminAddStamp: admin('POST', '/admin/v1/campaigns/:id/report/stamps', 'campaign'),
  adminAddWaiver: admin('POST', '/admin/v1/campaigns/:id/report/waivers', 'campaign'),
  adminCreateTask: admin('POST', '/admin/v1/campaigns/:id/tasks', 'campaign'),
  adminCreateTester: admin('POST', '/admin/v1/campaigns/:id/testers', 'campaign'),
  adminCompleteTask: admin('POST', '/admin/v1/campaign-testers/:campaignTesterId/tasks/:taskId/complete', 'campaign'),

  // Issues
  adminCreateIssue: admin('POST', '/admin/v1/campaigns/:id/issues', 'issue'),
  adminListIssues: admin('GET', '/admin/v1/campaigns/:id/issues', 'issue'),
  adminGetIssue: admin('GET', '/admin/v1/issues/:id', 'issue'),
  adminChangeIssueStatus: admin('POST', '/admin/v1/issues/:id/status', 'issue'),
  adminSetAssignee: admin('POST', '/admin/v1/issues/:id/assignee', 'issue'),

  // Webhook settings and deliveries
  adminCreateWebhook: admin('POST', '/admin/v1/organizations/:orgId/webhooks', 'webhook'),
  adminListWebhooks: admin('GET', '/admin/v1/organizations/:orgId/webhooks', 'webhook'),
  adminEnableWebhook: admin('POST', '/admin/v1/webhooks/:id/enable', 'webhook'),
  adminListDeliveries: admin('GET', '/admin/v1/webhooks/:id/deliveries', 'delivery'),
  adminRedeliver: admin('POST', '/admin/v1/webhooks/:id/deliveries/:deliveryId/redeliver', 'delivery'),
  adminRecoverWebhook: admin('POST', '/admin/v1/webhooks/:id/recover', 'delivery'),
  adminTestWebhook: admin('POST', '/admin/v1/webhooks/:id/test', 'delivery'),
  adminRotateWebhookSecret: admin('POST', '/admin/v1/webhooks/:id/secret/rotate', 'webhook'),

  // Chat channels and issue trackers
  adminCreateIntegration: admin('POST', '/admin/v1/organizations/:orgId/integrations', 'integration'),
  adminListIntegrations: admin('GET', '/admin/v1/organizations/:orgId/integrations', 'integration'),
  adminUpdateIntegration: admin('PATCH', '/admin/v1/integrations/:id', 'integration'),
  adminDeleteIntegration: admin('DELETE', '/admin/v1/integrations/:id', 'integration'),
  adminTestIntegration: admin('POST', '/admin/v1/integrations/:id/test', 'integration'),
  adminListIntegrationActivity: admin('GET', '/admin/v1/integrations/:id/activity', 'integration'),
  adminRotateInboundSecret: admin('POST', '/admin/v1/integrations/:id/inbound-secret', 'integration'),
  adminRetryIntegration: admin('POST', '/admin/v1/integrations/:id/retry', 'integration'),
  adminListIssueLinks: admin('GET', '/admin/v1/issues/:id/links', 'integration'),
} satisfies Record<string, Endpoint>;

/**
 * Inbound hooks of issue trackers: no API key (the integration service checks the provider's
 * signature over the raw body), rate-limited per connection id.
 */
export const HOOK_ENDPOINTS = {
  trackerHook: { method: 'POST', path: '/integrations/v1/hooks/:connectionId', auth: 'none', limitBy: 'connectionId', owner: 'integration' },
} satisfies Record<string, Endpoint>;
