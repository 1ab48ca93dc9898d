import type { Kysely } from '@preflight/db';
import { notFound } from '@preflight/http';
import type { AdminIssue, InternalIssue } from '@preflight/contract';
import { toAdminIssue, toInternalIssue } from '../views/issue-view.ts';
import { historyOf, type IssueHistoryRow } from '../storage/issue-history.ts';
import { findIssueDetail, type IssueDetailRow } from '../storage/issues.ts';
import type { IssueDatabase } from '../storage/schema.ts';

async function issueRow(db: Kysely<IssueDatabase>, issueId: string, orgScope: string | undefined): Promise<IssueDetailRow> {
  const row = await findIssueDetail(db, issueId, orgScope);
  if (!row) throw notFound('issue', issueId);
  return row;
}

async function detailRows(db: Kysely<IssueDatabase>, issueId: string, orgScope: string | undefined): Promise<[IssueDetailRow, IssueHistoryRow[]]> {
  const row = await issueRow(db, issueId, orgScope);
  return [row, await historyOf(db, issueId)];
}

/** The body of every admin issue answer: the public detail plus `reporter`; 404 outside `orgScope` (a console member's organisation). */
export async function adminIssueDetail(db: Kysely<IssueDatabase>, issueId: string, orgScope: string | undefined): Promise<AdminIssue> {
  return toAdminIssue(...(await detailRows(db, issueId, orgScope)));
}

/** The body of the /internal/v1 issue answers: the admin detail plus `orgId`; history only when asked for. */
export async function internalIssueDetail(db: Kysely<IssueDatabase>, issueId: string, opts: { history: boolean }): Promise<InternalIssue> {
  if (opts.history) return toInternalIssue(...(await detailRows(db, issueId, undefined)));
  return toInternalIssue(await issueRow(db, issueId, undefined), null);
}
