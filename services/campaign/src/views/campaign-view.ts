import type { InternalCampaign, PublicCampaign } from '@preflight/contract';
import type { Campaign } from '../storage/schema.ts';

/** PublicCampaign (public-api-v1.md 2.2): every field present, the unknown ones null. */
export function toPublicCampaign(campaign: Campaign): PublicCampaign {
  return {
    id: campaign.id,
    name: campaign.name,
    status: campaign.status,
    siteId: campaign.siteId,
    siteName: campaign.siteName,
    readinessLevel: campaign.readinessLevel,
    gate: campaign.gate,
    createdAt: campaign.createdAt.toISOString(),
  };
}

/** What other services learn about a campaign (the issue service's directory read-through). */
export function toInternalCampaign(campaign: Campaign): InternalCampaign {
  return {
    id: campaign.id,
    orgId: campaign.orgId,
    name: campaign.name,
    status: campaign.status,
    siteId: campaign.siteId,
    siteName: campaign.siteName,
    createdAt: campaign.createdAt.toISOString(),
  };
}
