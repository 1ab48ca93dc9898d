import type { Generated } from '@preflight/db';
import type { CampaignStatus, Gate, IssueSeverity, ReadinessLevel } from '@preflight/contract';
import type { SignOffDecision } from '../domain/launch-policy.ts';
import type { ReportEntryKind, SealState } from '../domain/readiness-report.ts';
import type { TesterStatus } from '../domain/tester-progress.ts';

/** Tables of the campaign schema, as kysely sees them (migrations/ creates them). */
export interface CampaignDatabase {
  sites: SitesTable;
  campaigns: CampaignsTable;
  campaign_status_history: CampaignStatusHistoryTable;
  issue_projection: IssueProjectionTable;
  launch_policies: LaunchPoliciesTable;
  campaign_signers: CampaignSignersTable;
  report_entries: ReportEntriesTable;
  campaign_tasks: CampaignTasksTable;
  campaign_testers: CampaignTestersTable;
  tester_task_completions: TesterTaskCompletionsTable;
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
  // The readiness report (storage/report.ts): its current version, a digest of its set of open
  // issue ids (domain/issue-stats.ts `openSetDigest`: how a change of the set is noticed), and
  // the seal of the current version.
  report_version: Generated<number>;
  report_open_digest: Generated<string>;
  seal_state: Generated<SealState>;
  sealed_version: number | null;
  seal_decision: SignOffDecision | null;
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
  /** From IssueCreated (status changes do not carry it); counts a tester's reported issues. */
  tester_email: string | null;
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

/** A required signer of a campaign's readiness report. */
export interface CampaignSignersTable {
  id: Generated<string>;
  campaign_id: string;
  name: string;
  email: string;
  created_at: Generated<Date>;
}

/** A signer's stamp (with a decision) or waiver (without) on one report version. */
export interface ReportEntriesTable {
  id: Generated<string>;
  campaign_id: string;
  signer_id: string;
  version: number;
  kind: ReportEntryKind;
  decision: SignOffDecision | null;
  note: string | null;
  at: Generated<Date>;
}

export interface CampaignTasksTable {
  id: Generated<string>;
  campaign_id: string;
  title: string;
  required: boolean;
  created_at: Generated<Date>;
}

export interface CampaignTestersTable {
  id: Generated<string>;
  campaign_id: string;
  name: string;
  email: string;
  preview: boolean;
  status: Generated<TesterStatus>;
  /** The latest verdict given with a completion, if any. */
  verdict: string | null;
  /** When every required task was done (and TesterCompleted emitted, unless preview). */
  completed_at: Date | null;
  created_at: Generated<Date>;
}

export interface TesterTaskCompletionsTable {
  campaign_tester_id: string;
  task_id: string;
  verdict: string | null;
  completed_at: Generated<Date>;
}

/*
 * What storage hands to routes and views: a row's columns under their domain names, aliased in
 * the SQL (the `*_COLUMNS` selections beside each table's queries), so no snake_case leaves storage/.
 */

export interface Site {
  id: string;
  orgId: string;
  name: string;
  url: string | null;
  createdAt: Date;
}

/** A campaign with its site's name: what every read of a campaign returns. */
export interface Campaign {
  id: string;
  orgId: string;
  siteId: string;
  siteName: string;
  name: string;
  status: CampaignStatus;
  readinessLevel: ReadinessLevel;
  gate: Gate;
  createdAt: Date;
}

export interface Signer {
  id: string;
  name: string;
  email: string;
  createdAt: Date;
}

export interface ReportEntry {
  signerId: string;
  version: number;
  kind: ReportEntryKind;
  decision: SignOffDecision | null;
  note: string | null;
  at: Date;
}

export interface Task {
  id: string;
  title: string;
  required: boolean;
}

export interface Tester {
  id: string;
  campaignId: string;
  name: string;
  email: string;
  preview: boolean;
  status: TesterStatus;
  verdict: string | null;
  completedAt: Date | null;
}
