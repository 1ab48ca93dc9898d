import type { Endpoint, HttpMethod, MemberAccess, ServiceName } from './endpoint.ts';

/**
 * The admin API (admin-api-v1.md), reached through the gateway with an operator token, and the
 * trackers' inbound hooks. Request and response shapes of admin endpoints are still declared in
 * the owning services' route files; the manifest says where each endpoint lives and who may call.
 */
const operator = <O extends ServiceName>(method: HttpMethod, path: string, owner: O) => ({ method, path, owner, auth: 'admin' as const });
/** Also open to console members of the organisation: every member (`Member`) or Owners and Admins (`Admin`). */
const admin = <O extends ServiceName>(method: HttpMethod, path: string, owner: O, members: MemberAccess) => ({ method, path, owner, auth: 'admin' as const, members });

export const ADMIN_ENDPOINTS = {
  // Organisations and keys, answered by the gateway
  adminCreateOrganization: operator('POST', '/admin/v1/organizations', 'gateway'),
  adminListOrganizations: operator('GET', '/admin/v1/organizations', 'gateway'),
  adminGetOrganization: admin('GET', '/admin/v1/organizations/:orgId', 'gateway', 'Member'),
  adminCreateApiKey: admin('POST', '/admin/v1/organizations/:orgId/api-keys', 'gateway', 'Admin'),
  adminListApiKeys: admin('GET', '/admin/v1/organizations/:orgId/api-keys', 'gateway', 'Admin'),
  adminRevokeApiKey: admin('DELETE', '/admin/v1/organizations/:orgId/api-keys/:keyId', 'gateway', 'Admin'),

  // Operator tokens and the audit log, answered by the gateway
  adminCreateOperatorToken: operator('POST', '/admin/v1/operator-tokens', 'gateway'),
  adminListOperatorTokens: operator('GET', '/admin/v1/operator-tokens', 'gateway'),
  adminRevokeOperatorToken: operator('DELETE', '/admin/v1/operator-tokens/:id', 'gateway'),
  adminAuditLog: operator('GET', '/admin/v1/audit-log', 'gateway'),

  // Sites, campaigns, sign-off and testers
  adminCreateSite: admin('POST', '/admin/v1/organizations/:orgId/sites', 'campaign', 'Admin'),
  adminListSites: admin('GET', '/admin/v1/organizations/:orgId/sites', 'campaign', 'Member'),
  adminListCampaigns: admin('GET', '/admin/v1/organizations/:orgId/campaigns', 'campaign', 'Member'),
  adminCreateCampaign: admin('POST', '/admin/v1/sites/:siteId/campaigns', 'campaign', 'Admin'),
  adminGetCampaign: admin('GET', '/admin/v1/campaigns/:id', 'campaign', 'Member'),
  adminChangeCampaignStatus: admin('POST', '/admin/v1/campaigns/:id/status', 'campaign', 'Admin'),
  adminGetPolicy: admin('GET', '/admin/v1/campaigns/:id/policy', 'campaign', 'Member'),
  adminReplacePolicy: admin('PUT', '/admin/v1/campaigns/:id/policy', 'campaign', 'Admin'),
  adminAddSigner: admin('POST', '/admin/v1/campaigns/:id/signers', 'campaign', 'Admin'),
  adminListSigners: admin('GET', '/admin/v1/campaigns/:id/signers', 'campaign', 'Member'),
  adminRemoveSigner: admin('DELETE', '/admin/v1/campaigns/:id/signers/:signerId', 'campaign', 'Admin'),
  adminGetReport: admin('GET', '/admin/v1/campaigns/:id/report', 'campaign', 'Member'),
  adminAddStamp: admin('POST', '/admin/v1/campaigns/:id/report/stamps', 'campaign', 'Member'),
  adminAddWaiver: admin('POST', '/admin/v1/campaigns/:id/report/waivers', 'campaign', 'Admin'),
  adminCreateTask: admin('POST', '/admin/v1/campaigns/:id/tasks', 'campaign', 'Admin'),
  adminListTasks: admin('GET', '/admin/v1/campaigns/:id/tasks', 'campaign', 'Member'),
  adminCreateTester: admin('POST', '/admin/v1/campaigns/:id/testers', 'campaign', 'Admin'),
  adminListTesters: admin('GET', '/admin/v1/campaigns/:id/testers', 'campaign', 'Member'),
  adminCompleteTask: admin('POST', '/admin/v1/campaign-testers/:campaignTesterId/tasks/:taskId/complete', 'campaign', 'Member'),

  // Issues
  adminCreateIssue: admin('POST', '/admin/v1/campaigns/:id/issues', 'issue', 'Member'),
  adminListIssues: admin('GET', '/admin/v1/campaigns/:id/issues', 'issue', 'Member'),
  adminGetIssue: admin('GET', '/admin/v1/issues/:id', 'issue', 'Member'),
  adminChangeIssueStatus: admin('POST', '/admin/v1/issues/:id/status', 'issue', 'Member'),
  adminSetAssignee: admin('POST', '/admin/v1/issues/:id/assignee', 'issue', 'Member'),

  // Webhook settings and deliveries
  adminCreateWebhook: admin('POST', '/admin/v1/organizations/:orgId/webhooks', 'webhook', 'Admin'),
  adminListWebhooks: admin('GET', '/admin/v1/organizations/:orgId/webhooks', 'webhook', 'Admin'),
  adminEnableWebhook: admin('POST', '/admin/v1/webhooks/:id/enable', 'webhook', 'Admin'),
  adminListDeliveries: admin('GET', '/admin/v1/webhooks/:id/deliveries', 'delivery', 'Admin'),
  adminRedeliver: admin('POST', '/admin/v1/webhooks/:id/deliveries/:deliveryId/redeliver', 'delivery', 'Admin'),
  adminRecoverWebhook: admin('POST', '/admin/v1/webhooks/:id/recover', 'delivery', 'Admin'),
  adminTestWebhook: admin('POST', '/admin/v1/webhooks/:id/test', 'delivery', 'Admin'),
  adminRotateWebhookSecret: admin('POST', '/admin/v1/webhooks/:id/secret/rotate', 'webhook', 'Admin'),

  // Chat channels and issue trackers
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

/**
 * Inbound hooks of issue trackers: no API key (the integration service checks the provider's
 * signature over the raw body), rate-limited per connection id.
 */
export const HOOK_ENDPOINTS = {
  trackerHook: { method: 'POST', path: '/integrations/v1/hooks/:connectionId', auth: 'none', limitBy: 'connectionId', owner: 'integration' },
} satisfies Record<string, Endpoint>;
