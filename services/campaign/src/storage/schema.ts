import type { Generated, Selectable } from '@preflight/db';
import type { CampaignStatus, Gate, ReadinessLevel } from '@preflight/contract';

/** Tables of the campaign schema, as kysely sees them (migrations/ creates them). */
export interface CampaignDatabase {
  sites: SitesTable;
  campaigns: CampaignsTable;
  campaign_status_history: CampaignStatusHistoryTable;
}

export interface SitesTable {
  id: Generated<string>;
  org_id: string;
  name: string;
  url: string | null;
  created_at: Generated<Date>;
}

export interface CampaignsTable {
  id: Generated<string>;
  org_id: string;
  site_id: string;
  name: string;
  status: CampaignStatus;
  // Filled later by the projection of issue events; null until then.
  readiness_level: ReadinessLevel | null;
  gate: Gate | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface CampaignStatusHistoryTable {
  id: Generated<string>;
  campaign_id: string;
  from_status: CampaignStatus;
  to_status: CampaignStatus;
  reason: string | null;
  occurred_at: Generated<Date>;
}

export type SiteRow = Selectable<SitesTable>;
/** A campaign joined with its site's name: what every read of a campaign returns. */
export type CampaignRow = Selectable<CampaignsTable> & { site_name: string };
