import type { AdminIssue, InternalIssue, IssueListQuery, IssuePage, PublicIssue, PublicIssueSummary } from '@preflight/contract';
import type { IssueHistoryRow } from '../storage/issue-history.ts';
import type { IssueDetailRow } from '../storage/issues.ts';
import type { IssueSummaryRow } from '../storage/issue-list.ts';

/** Rows to the public shapes of public-api-v1.md section 2: every field present, null when unset. */
export function toIssueSummary(row: IssueSummaryRow): PublicIssueSummary {
  return {
    id: row.id,
    seqNumber: row.seqNumber,
    title: row.title,
    type: row.type,
    severity: row.severity,
    status: row.status,
    assigneeName: row.assigneeName,
    pageUrl: row.pageUrl,
    createdAt: row.createdAt.toISOString(),
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
    seqNumber: row.seqNumber,
    campaignId: row.campaignId,
    campaignName: row.campaignName,
    siteId: row.siteId,
    siteName: row.siteName,
    type: row.type,
    severity: row.severity,
    status: row.status,
    title: row.title,
    description: row.description,
    stepsToReproduce: row.stepsToReproduce,
    expectedBehavior: row.expectedBehavior,
    actualBehavior: row.actualBehavior,
    pageUrl: row.pageUrl,
    pageTitle: row.pageTitle,
    browserName: row.browserName,
    browserVersion: row.browserVersion,
    operatingSystem: row.operatingSystem,
    deviceType: row.deviceType,
    screenResolution: row.screenResolution,
    screenshotUrl: row.screenshotUrl,
    assigneeName: row.assigneeName,
    testerEmail: row.testerEmail,
    duplicateOfId: row.duplicateOfId,
    duplicateOfSeqNumber: row.duplicateOfSeqNumber,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    history: history.map((h) => ({ from: h.from, to: h.to, reason: h.reason, occurredAt: h.occurredAt.toISOString() })),
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
  return { ...admin, status: row.status, title: row.title, history: history === null ? null : admin.history, orgId: row.orgId };
}
