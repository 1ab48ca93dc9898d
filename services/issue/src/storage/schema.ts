import type { ColumnType, Generated } from '@preflight/db';
import type { CampaignStatus, IssueSeverity, IssueStatus, IssueType } from '@preflight/contract';

/**
 * Table types of the issue schema (migrations/). `outbox` and `inbox` (0002) belong to
 * @preflight/bus and are only reached through it.
 */
type DefaultedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface CampaignDirectoryTable {
  campaign_id: string;
  org_id: string;
  name: string | null;
  status: CampaignStatus | null;
  // Unknown (null) while only a status event has been seen, before CampaignCreated or a read-through.
  site_id: string | null;
  site_name: string | null;
  created_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  refreshed_at: DefaultedTimestamp;
  /** The newest source applied: an event's occurred_at, or the moment of a read-through. */
  source_occurred_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
}

export interface CampaignSequencesTable {
  campaign_id: string;
  last_seq: number;
}

export interface IssuesTable {
  id: Generated<string>;
  org_id: string;
  campaign_id: string;
  seq_number: number;
  title: string;
  description: string | null;
  steps_to_reproduce: string | null;
  expected_behavior: string | null;
  actual_behavior: string | null;
  severity: IssueSeverity;
  severity_rank: number;
  type: IssueType;
  status: IssueStatus;
  page_url: string | null;
  page_title: string | null;
  browser_name: string | null;
  browser_version: string | null;
  operating_system: string | null;
  device_type: string | null;
  screen_resolution: string | null;
  screenshot_url: string | null;
  assignee_name: string | null;
  tester_email: string | null;
  reporter: string;
  duplicate_of_id: string | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
  /** 1 at creation, +1 on every change; carried by every issue event. */
  revision: Generated<number>;
}

export interface IssueHistoryTable {
  id: Generated<number>;
  issue_id: string;
  from_status: IssueStatus | null;
  to_status: IssueStatus;
  reason: string | null;
  occurred_at: DefaultedTimestamp;
}

/** Issues of a campaign by severity and status; kept by statement triggers on issues (migrations/0004). */
export interface IssueCountsTable {
  campaign_id: string;
  severity_rank: number;
  status: IssueStatus;
  n: number;
}

export interface IssueDatabase {
  campaign_directory: CampaignDirectoryTable;
  campaign_sequences: CampaignSequencesTable;
  issues: IssuesTable;
  issue_history: IssueHistoryTable;
  issue_counts: IssueCountsTable;
}
