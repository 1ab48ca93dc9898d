import type { Generated, Selectable } from '@preflight/db';
import type { CampaignStatus, Gate, IssueSeverity, ReadinessLevel } from '@preflight/contract';

/** Tables of the campaign schema, as kysely sees them (migrations/ creates them). */
export interface CampaignDatabase {
  sites: SitesTable;
  campaigns: CampaignsTable;
  campaign_status_history: CampaignStatusHistoryTable;
  issue_projection: IssueProjectionTable;
  launch_policies: LaunchPoliciesTable;
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
  // The launch policy's verdict over the projected issues (storage/readiness.ts); never null
  // since migration 0002 (the columns stay nullable publicly).
  readiness_level: ReadinessLevel;
  gate: Gate;
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

/** The newest known state of each issue, from issue events (highest revision wins). */
export interface IssueProjectionTable {
  issue_id: string;
  campaign_id: string;
  org_id: string | null;
  severity: string | null;
  status: string;
  revision: number;
  updated_at: Generated<Date>;
}

/** A campaign's launch thresholds, when changed from the default. */
export interface LaunchPoliciesTable {
  campaign_id: string;
  do_not_launch_min_severity: IssueSeverity;
  do_not_launch_max_open: number;
  at_risk_min_severity: IssueSeverity;
  at_risk_max_open: number;
  updated_at: Generated<Date>;
}

export type SiteRow = Selectable<SitesTable>;
/** A campaign joined with its site's name: what every read of a campaign returns. */
export type CampaignRow = Selectable<CampaignsTable> & { site_name: string };
