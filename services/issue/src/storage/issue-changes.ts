import { sql, type Kysely } from '@preflight/db';
import type { IssueStatus } from '@preflight/contract';
import { allowedTransitions, canTransition, type StatusTransition } from '../domain/issue-workflow.ts';
import { appendHistory } from './issue-history.ts';
import type { IssueDatabase } from './schema.ts';

export type StatusChangeOutcome =
  | { kind: 'changed'; transition: StatusTransition }
  | { kind: 'not_found' }
  | { kind: 'not_allowed'; current: IssueStatus; allowed: readonly IssueStatus[] }
  | { kind: 'bad_duplicate' };

/**
 * Moves an issue along the workflow. The row is locked first so the rule is checked against
 * the status the change really starts from; the change and its history entry commit together,
 * and so will the status-change outbox row.
 */
export async function changeIssueStatus(
  db: Kysely<IssueDatabase>,
  change: { issueId: string; to: IssueStatus; reason: string | null; duplicateOfId: string | null },
): Promise<StatusChangeOutcome> {
  return db.transaction().execute(async (trx): Promise<StatusChangeOutcome> => {
    const issue = await trx
      .selectFrom('issues')
      .select(['id', 'campaign_id', 'status'])
      .where('id', '=', change.issueId)
      .forUpdate()
      .executeTakeFirst();
    if (!issue) return { kind: 'not_found' };
    if (!canTransition(issue.status, change.to)) {
      return { kind: 'not_allowed', current: issue.status, allowed: allowedTransitions(issue.status) };
    }
    if (change.to === 'Duplicate') {
      const original = await trx
        .selectFrom('issues')
        .select('id')
        .where('id', '=', change.duplicateOfId ?? issue.id)
        .where('id', '<>', issue.id)
        .where('campaign_id', '=', issue.campaign_id)
        .executeTakeFirst();
      if (!original) return { kind: 'bad_duplicate' };
    }
    await trx
      .updateTable('issues')
      .set({
        status: change.to,
        // Only a Duplicate points at its original; leaving Duplicate forgets it.
        duplicate_of_id: change.to === 'Duplicate' ? change.duplicateOfId : null,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', issue.id)
      .execute();
    await appendHistory(trx, { issueId: issue.id, from: issue.status, to: change.to, reason: change.reason });
    const transition = { from: issue.status, to: change.to };
    // Outbox: the status-change row (event from statusChangeEvent(transition)) is inserted here.
    return { kind: 'changed', transition };
  });
}

/** Assigns or (with null) unassigns an issue; false when there is no such issue. */
export async function setIssueAssignee(
  db: Kysely<IssueDatabase>,
  change: { issueId: string; assigneeName: string | null },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('issues')
      .set({ assignee_name: change.assigneeName, updated_at: sql<Date>`now()` })
      .where('id', '=', change.issueId)
      .returning('id')
      .executeTakeFirst();
    // Outbox: the internal IssueAssigned row is inserted here (no public webhook event maps
    // to assignment).
    return updated !== undefined;
  });
}
