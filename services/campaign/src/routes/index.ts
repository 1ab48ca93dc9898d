import { onlyFrom } from '@preflight/service-auth';
import { adminAddSigner } from './admin-add-signer.ts';
import { adminAddStamp } from './admin-add-stamp.ts';
import { adminAddWaiver } from './admin-add-waiver.ts';
import { adminChangeStatus } from './admin-change-status.ts';
import { adminCompleteTask } from './admin-complete-task.ts';
import { adminCreateCampaign } from './admin-create-campaign.ts';
import { adminCreateSite } from './admin-create-site.ts';
import { adminCreateTask } from './admin-create-task.ts';
import { adminCreateTester } from './admin-create-tester.ts';
import { adminGetCampaign } from './admin-get-campaign.ts';
import { adminGetPolicy } from './admin-get-policy.ts';
import { adminGetReport } from './admin-get-report.ts';
import { adminListCampaigns } from './admin-list-campaigns.ts';
import { adminListSigners } from './admin-list-signers.ts';
import { adminListTasks } from './admin-list-tasks.ts';
import { adminListTesters } from './admin-list-testers.ts';
import { adminListSites } from './admin-list-sites.ts';
import { adminRemoveSigner } from './admin-remove-signer.ts';
import { adminReplacePolicy } from './admin-replace-policy.ts';
import type { Registration } from './context.ts';
import { internalGetCampaign } from './internal-get-campaign.ts';
import { publicListCampaigns } from './public-list-campaigns.ts';

export const registrations: readonly Registration[] = [
  publicListCampaigns,
  adminCreateSite,
  adminListSites,
  adminListCampaigns,
  adminCreateCampaign,
  adminGetCampaign,
  adminChangeStatus,
  adminGetPolicy,
  adminReplacePolicy,
  adminAddSigner,
  adminListSigners,
  adminRemoveSigner,
  adminGetReport,
  adminAddStamp,
  adminAddWaiver,
  adminCreateTask,
  adminListTasks,
  adminCreateTester,
  adminListTesters,
  adminCompleteTask,
  // The issue service's directory read-through; nobody else needs a campaign with its orgId.
  onlyFrom(['issue'], internalGetCampaign),
];
