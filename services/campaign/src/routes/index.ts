import { registerChangeCampaignStatus } from './change-campaign-status.ts';
import { registerCreateCampaign } from './create-campaign.ts';
import { registerCreateSite } from './create-site.ts';
import { registerGetCampaign } from './get-campaign.ts';
import { registerGetCampaignPolicy } from './get-campaign-policy.ts';
import { registerGetInternalCampaign } from './get-internal-campaign.ts';
import { registerListCampaigns } from './list-campaigns.ts';
import { registerListOrganizationCampaigns } from './list-organization-campaigns.ts';
import { registerListSites } from './list-sites.ts';
import { registerPutCampaignPolicy } from './put-campaign-policy.ts';
import { registerAddStamp, registerAddWaiver, registerGetReport } from './report.ts';
import type { RegisterRoute } from './route.ts';
import { registerAddSigner, registerListSigners, registerRemoveSigner } from './signers.ts';
import { registerCompleteTask, registerCreateTask, registerCreateTester } from './testers.ts';

export const registrations: readonly RegisterRoute[] = [
  // Public API (an API key, confined to its organisation).
  registerListCampaigns,
  // Admin API (the operator, every organisation).
  registerCreateSite,
  registerListSites,
  registerListOrganizationCampaigns,
  registerCreateCampaign,
  registerGetCampaign,
  registerChangeCampaignStatus,
  registerGetCampaignPolicy,
  registerPutCampaignPolicy,
  registerAddSigner,
  registerListSigners,
  registerRemoveSigner,
  registerGetReport,
  registerAddStamp,
  registerAddWaiver,
  registerCreateTask,
  registerCreateTester,
  registerCompleteTask,
  // Internal, for other services.
  registerGetInternalCampaign,
];
