import type { AdminIssue, InternalIssue, IssueListQuery, IssuePage, PublicIssue, PublicIssueSummary } from '@preflight/contract';
import type { IssueHistoryRow } from '../storage/issue-history.ts';
import type { IssueDetailRow } from '../storage/issues.ts';
import type { IssueSummaryRow } from '../storage/issue-list.ts';

/** Rows to the public shapes of public-api-v1.md section 2: every field present, null when unset. */
export function toIssueSummary(row: IssueSummaryRow): PublicIssueSummary {
  return {
    id: row.id,
    seqNumber: row.seq_number,
    title: row.title,
    type: row.type,
    severity: row.severity,
    status: row.status,
    assigneeName: row.assignee_name,
    pageUrl: row.page_url,
    createdAt: row.created_at.toISOString(),
  };
}

export function toIssuePage(rows: IssueSummaryRow[], total: number, query: IssueListQuery): IssuePage {
  return {
    items: rows.map(toIssueSummary),
    page: query.page,
    pageSize: query.pageSize,
    total,
    hasMore: query.page * query.pageSize < total,
  };
}

export function toPublicIssue(row: IssueDetailRow, history: IssueHistoryRow[]): PublicIssue {
  return {
    id: row.id,
    seqNumber: row.seq_number,
    campaignId: row.campaign_id,
    campaignName: row.campaign_name,
    siteId: row.site_id,
    siteName: row.site_name,
    type: row.type,
    severity: row.severity,
    status: row.status,
    title: row.title,
    description: row.description,
    stepsToReproduce: row.steps_to_reproduce,
    expectedBehavior: row.expected_behavior,
    actualBehavior: row.actual_behavior,
    pageUrl: row.page_url,
    pageTitle: row.page_title,
    browserName: row.browser_name,
    browserVersion: row.browser_version,
    operatingSystem: row.operating_system,
    deviceType: row.device_type,
    screenResolution: row.screen_resolution,
    screenshotUrl: row.screenshot_url,
    assigneeName: row.assignee_name,
    testerEmail: row.tester_email,
    duplicateOfId: row.duplicate_of_id,
    duplicateOfSeqNumber: row.duplicate_of_seq_number,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    history: history.map((h) => ({ from: h.from_status, to: h.to_status, reason: h.reason, occurredAt: h.occurred_at.toISOString() })),
  };
}

/** The dashboard also sees who filed the issue. */
export function toAdminIssue(row: IssueDetailRow, history: IssueHistoryRow[]): AdminIssue {
  return { ...toPublicIssue(row, history), reporter: row.reporter };
}

/**
 * The /internal/v1 detail (the integration service): the admin detail plus whose issue it is.
 * `history` is null where the caller does not need it (the plain read: one query, not two).
 */
export function toInternalIssue(row: IssueDetailRow, history: IssueHistoryRow[] | null): InternalIssue {
  const admin = toAdminIssue(row, history ?? []);
  // status and title restated: never null on a stored issue, as the internal shape says.
  return { ...admin, status: row.status, title: row.title, history: history === null ? null : admin.history, orgId: row.org_id };
}
