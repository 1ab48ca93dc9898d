import { z } from 'zod';
import { CampaignListQuerySchema } from '../../requests.ts';
import { PublicCampaignSchema } from '../../resources.ts';
import type { Endpoint } from '../endpoint.ts';
import { admin } from './access.ts';
import {
  AdminAddSignerRequestSchema,
  AdminAddStampRequestSchema,
  AdminAddWaiverRequestSchema,
  AdminChangeCampaignStatusRequestSchema,
  AdminCompleteTaskRequestSchema,
  AdminCreateCampaignRequestSchema,
  AdminCreateSiteRequestSchema,
  AdminCreateTaskRequestSchema,
  AdminCreateTesterRequestSchema,
  AdminLaunchPolicySchema,
  AdminReportEntrySchema,
  AdminReportSchema,
  AdminSignerSchema,
  AdminSiteSchema,
  AdminTaskSchema,
  AdminTesterProgressSchema,
  AdminTesterSchema,
} from './campaign-shapes.ts';

/**
 * Sites, campaigns, policies, sign-off, report stamps and waivers, testers and tasks.
 * Admin API (admin-api-v1.md); the request and response shapes are in campaign-shapes.ts.
 * Campaigns are shown in the public Campaign shape.
 */
export const CAMPAIGN_ADMIN_ENDPOINTS = {
  adminCreateSite: {
    ...admin('POST', '/admin/v1/organizations/:orgId/sites', 'campaign', 'Admin'),
    request: { body: AdminCreateSiteRequestSchema },
    response: { status: 201, body: AdminSiteSchema },
  },
  adminListSites: {
    ...admin('GET', '/admin/v1/organizations/:orgId/sites', 'campaign', 'Member'),
    response: { status: 200, body: z.array(AdminSiteSchema) },
  },
  adminListCampaigns: {
    ...admin('GET', '/admin/v1/organizations/:orgId/campaigns', 'campaign', 'Member'),
    request: { query: CampaignListQuerySchema },
    response: { status: 200, body: z.array(PublicCampaignSchema) },
  },
  adminCreateCampaign: {
    ...admin('POST', '/admin/v1/sites/:siteId/campaigns', 'campaign', 'Admin'),
    request: { body: AdminCreateCampaignRequestSchema },
    response: { status: 201, body: PublicCampaignSchema },
  },
  adminGetCampaign: {
    ...admin('GET', '/admin/v1/campaigns/:id', 'campaign', 'Member'),
    response: { status: 200, body: PublicCampaignSchema },
  },
  adminChangeCampaignStatus: {
    ...admin('POST', '/admin/v1/campaigns/:id/status', 'campaign', 'Admin'),
    request: { body: AdminChangeCampaignStatusRequestSchema },
    response: { status: 200, body: PublicCampaignSchema },
  },
  adminGetPolicy: {
    ...admin('GET', '/admin/v1/campaigns/:id/policy', 'campaign', 'Member'),
    response: { status: 200, body: AdminLaunchPolicySchema },
  },
  adminReplacePolicy: {
    ...admin('PUT', '/admin/v1/campaigns/:id/policy', 'campaign', 'Admin'),
    request: { body: AdminLaunchPolicySchema },
    response: { status: 200, body: AdminLaunchPolicySchema },
  },
  adminAddSigner: {
    ...admin('POST', '/admin/v1/campaigns/:id/signers', 'campaign', 'Admin'),
    request: { body: AdminAddSignerRequestSchema },
    response: { status: 201, body: AdminSignerSchema },
  },
  adminListSigners: {
    ...admin('GET', '/admin/v1/campaigns/:id/signers', 'campaign', 'Member'),
    response: { status: 200, body: z.array(AdminSignerSchema) },
  },
  adminRemoveSigner: {
    ...admin('DELETE', '/admin/v1/campaigns/:id/signers/:signerId', 'campaign', 'Admin'),
    response: { status: 204 },
  },
  adminGetReport: {
    ...admin('GET', '/admin/v1/campaigns/:id/report', 'campaign', 'Member'),
    response: { status: 200, body: AdminReportSchema },
  },
  adminAddStamp: {
    ...admin('POST', '/admin/v1/campaigns/:id/report/stamps', 'campaign', 'Member'),
    request: { body: AdminAddStampRequestSchema },
    response: { status: 201, body: AdminReportEntrySchema },
  },
  adminAddWaiver: {
    ...admin('POST', '/admin/v1/campaigns/:id/report/waivers', 'campaign', 'Admin'),
    request: { body: AdminAddWaiverRequestSchema },
    response: { status: 201, body: AdminReportEntrySchema },
  },
  adminCreateTask: {
    ...admin('POST', '/admin/v1/campaigns/:id/tasks', 'campaign', 'Admin'),
    request: { body: AdminCreateTaskRequestSchema },
    response: { status: 201, body: AdminTaskSchema },
  },
  adminListTasks: {
    ...admin('GET', '/admin/v1/campaigns/:id/tasks', 'campaign', 'Member'),
    response: { status: 200, body: z.array(AdminTaskSchema) },
  },
  adminCreateTester: {
    ...admin('POST', '/admin/v1/campaigns/:id/testers', 'campaign', 'Admin'),
    request: { body: AdminCreateTesterRequestSchema },
    response: { status: 201, body: AdminTesterSchema },
  },
  adminListTesters: {
    ...admin('GET', '/admin/v1/campaigns/:id/testers', 'campaign', 'Member'),
    response: { status: 200, body: z.array(AdminTesterProgressSchema) },
  },
  adminCompleteTask: {
    ...admin('POST', '/admin/v1/campaign-testers/:campaignTesterId/tasks/:taskId/complete', 'campaign', 'Member'),
    request: { body: AdminCompleteTaskRequestSchema },
    response: { status: 200, body: AdminTesterProgressSchema },
  },
} satisfies Record<string, Endpoint>;
