import type { InternalCampaign, PublicCampaign } from '@preflight/contract';
import type { CampaignRow } from '../storage/schema.ts';

/** PublicCampaign (public-api-v1.md 2.2): every field present, the unknown ones null. */
export function toPublicCampaign(row: CampaignRow): PublicCampaign {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    siteId: row.site_id,
    siteName: row.site_name,
    readinessLevel: row.readiness_level,
    gate: row.gate,
    createdAt: row.created_at.toISOString(),
  };
}

/** What other services learn about a campaign (the issue service's directory read-through). */
export function toInternalCampaign(row: CampaignRow): InternalCampaign {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    status: row.status,
    siteId: row.site_id,
    siteName: row.site_name,
    createdAt: row.created_at.toISOString(),
  };
}
