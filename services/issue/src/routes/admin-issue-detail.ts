import type { Kysely } from '@preflight/db';
import { notFound } from '@preflight/http';
import { toAdminIssue, type AdminIssue } from '../views/issue-view.ts';
import { historyOf } from '../storage/issue-history.ts';
import { findIssueDetail } from '../storage/issues.ts';
import type { IssueDatabase } from '../storage/schema.ts';

/** The body of every admin issue answer: the public detail plus `reporter`. */
export async function adminIssueDetail(db: Kysely<IssueDatabase>, issueId: string): Promise<AdminIssue> {
  const row = await findIssueDetail(db, issueId, undefined);
  if (!row) throw notFound('issue', issueId);
  return toAdminIssue(row, await historyOf(db, issueId));
}
