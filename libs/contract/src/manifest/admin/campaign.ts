import { z } from 'zod';
import { CampaignListQuerySchema } from '../../requests.ts';
import { PublicCampaignSchema } from '../../resources.ts';
import type { Endpoint } from '../endpoint.ts';
import { admin } from './access.ts';
import * as shapes from './campaign-shapes.ts';

/**
 * Sites, campaigns, policies, sign-off, report stamps and waivers, testers and tasks.
 * Admin API (admin-api-v1.md); the request and response shapes are in campaign-shapes.ts.
 * Campaigns are shown in the public Campaign shape.
 */
export const CAMPAIGN_ADMIN_ENDPOINTS = {
  adminCreateSite: admin('POST', '/admin/v1/organizations/:orgId/sites', 'campaign', 'Admin', { request: { body: shapes.AdminCreateSiteRequestSchema }, response: { status: 201, body: shapes.AdminSiteSchema } }),
  adminListSites: admin('GET', '/admin/v1/organizations/:orgId/sites', 'campaign', 'Member', { response: { status: 200, body: z.array(shapes.AdminSiteSchema) } }),
  adminListCampaigns: admin('GET', '/admin/v1/organizations/:orgId/campaigns', 'campaign', 'Member', { request: { query: CampaignListQuerySchema }, response: { status: 200, body: z.array(PublicCampaignSchema) } }),
  adminCreateCampaign: admin('POST', '/admin/v1/sites/:siteId/campaigns', 'campaign', 'Admin', { request: { body: shapes.AdminCreateCampaignRequestSchema }, response: { status: 201, body: PublicCampaignSchema } }),
  adminGetCampaign: admin('GET', '/admin/v1/campaigns/:id', 'campaign', 'Member', { response: { status: 200, body: PublicCampaignSchema } }),
  adminChangeCampaignStatus: admin('POST', '/admin/v1/campaigns/:id/status', 'campaign', 'Admin', { request: { body: shapes.AdminChangeCampaignStatusRequestSchema }, response: { status: 200, body: PublicCampaignSchema } }),
  adminGetPolicy: admin('GET', '/admin/v1/campaigns/:id/policy', 'campaign', 'Member', { response: { status: 200, body: shapes.AdminLaunchPolicySchema } }),
  adminReplacePolicy: admin('PUT', '/admin/v1/campaigns/:id/policy', 'campaign', 'Admin', { request: { body: shapes.AdminLaunchPolicySchema }, response: { status: 200, body: shapes.AdminLaunchPolicySchema } }),
  adminAddSigner: admin('POST', '/admin/v1/campaigns/:id/signers', 'campaign', 'Admin', { request: { body: shapes.AdminAddSignerRequestSchema }, response: { status: 201, body: shapes.AdminSignerSchema } }),
  adminListSigners: admin('GET', '/admin/v1/campaigns/:id/signers', 'campaign', 'Member', { response: { status: 200, body: z.array(shapes.AdminSignerSchema) } }),
  adminRemoveSigner: admin('DELETE', '/admin/v1/campaigns/:id/signers/:signerId', 'campaign', 'Admin', { response: { status: 204 } }),
  adminGetReport: admin('GET', '/admin/v1/campaigns/:id/report', 'campaign', 'Member', { response: { status: 200, body: shapes.AdminReportSchema } }),
  adminAddStamp: admin('POST', '/admin/v1/campaigns/:id/report/stamps', 'campaign', 'Member', { request: { body: shapes.AdminAddStampRequestSchema }, response: { status: 201, body: shapes.AdminReportEntrySchema } }),
  adminAddWaiver: admin('POST', '/admin/v1/campaigns/:id/report/waivers', 'campaign', 'Admin', { request: { body: shapes.AdminAddWaiverRequestSchema }, response: { status: 201, body: shapes.AdminReportEntrySchema } }),
  adminCreateTask: admin('POST', '/admin/v1/campaigns/:id/tasks', 'campaign', 'Admin', { request: { body: shapes.AdminCreateTaskRequestSchema }, response: { status: 201, body: shapes.AdminTaskSchema } }),
  adminListTasks: admin('GET', '/admin/v1/campaigns/:id/tasks', 'campaign', 'Member', { response: { status: 200, body: z.array(shapes.AdminTaskSchema) } }),
  adminCreateTester: admin('POST', '/admin/v1/campaigns/:id/testers', 'campaign', 'Admin', { request: { body: shapes.AdminCreateTesterRequestSchema }, response: { status: 201, body: shapes.AdminTesterSchema } }),
  adminListTesters: admin('GET', '/admin/v1/campaigns/:id/testers', 'campaign', 'Member', { response: { status: 200, body: z.array(shapes.AdminTesterProgressSchema) } }),
  adminCompleteTask: admin('POST', '/admin/v1/campaign-testers/:campaignTesterId/tasks/:taskId/complete', 'campaign', 'Member', { request: { body: shapes.AdminCompleteTaskRequestSchema }, response: { status: 200, body: shapes.AdminTesterProgressSchema } }),
} satisfies Record<string, Endpoint>;
