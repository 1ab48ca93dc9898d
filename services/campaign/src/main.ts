import { serviceMain } from '@preflight/service-kit';
import { campaignService } from './app.ts';
import { loadCampaignConfig } from './config.ts';

await serviceMain(campaignService, () => loadCampaignConfig());
