import type { Endpoint } from '../endpoint.ts';
import { admin } from './access.ts';

/**
 * Sites, campaigns, policies, sign-off, report stamps and waivers, testers and tasks.
 * Admin API (admin-api-v1.md); request and response shapes live beside their entries.
 */
export const CAMPAIGN_ADMIN_ENDPOINTS = {
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
} satisfies Record<string, Endpoint>;
