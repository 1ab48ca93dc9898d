import { sql, type Kysely } from '@preflight/db';
import type { IssueStatus } from '@preflight/contract';
import { issueAssignedEvent, issueStatusChangedEvent } from '../domain/issue-events.ts';
import { allowedTransitions, canTransition, type StatusTransition } from '../domain/issue-workflow.ts';
import { appendHistory } from './issue-history.ts';
import { enqueueDomainEvent, type EventTarget } from '@preflight/bus';
import type { IssueDatabase } from './schema.ts';

/**
 * The issues a caller confined to `orgScope` may change: a console member's organisation's, or
 * every one (undefined: the operator, the integration service). Another organisation's issue is
 * missing, found so before anything is written.
 */
function issuesIn(db: Kysely<IssueDatabase>, orgScope: string | undefined) {
  const issues = db.selectFrom('issues');
  return orgScope === undefined ? issues : issues.where('org_id', '=', orgScope);
}

export type StatusChangeOutcome =
  | { kind: 'changed'; transition: StatusTransition; revision: number }
  | { kind: 'not_found' }
  | { kind: 'not_allowed'; current: IssueStatus; allowed: readonly IssueStatus[] }
  | { kind: 'bad_duplicate' };

/**
 * Moves an issue along the workflow. The row is locked first so the rule is checked against
 * the status the change really starts from; the change, the revision bump, its history entry
 * and exactly one IssueStatusChanged outbox row commit together. A refused change writes
 * nothing, so it emits nothing. `origin` (e.g. `integration:<connectionId>`) is put on the
 * event when the change did not come from a person in Preflight; absent or null otherwise.
 * Outside `orgScope` the issue is `not_found`; a Duplicate's original is of the same campaign,
 * hence of the same organisation.
 */
export async function changeIssueStatus(
  db: Kysely<IssueDatabase>,
  events: EventTarget,
  change: { issueId: string; to: IssueStatus; reason: string | null; duplicateOfId: string | null; origin?: string | null; orgScope?: string | undefined },
): Promise<StatusChangeOutcome> {
  return db.transaction().execute(async (trx): Promise<StatusChangeOutcome> => {
    const issue = await issuesIn(trx, change.orgScope)
      .select(['id', 'org_id', 'campaign_id', 'status', 'title', 'severity'])
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
    const updated = await trx
      .updateTable('issues')
      .set({
        status: change.to,
        // Only a Duplicate points at its original; leaving Duplicate forgets it.
        duplicate_of_id: change.to === 'Duplicate' ? change.duplicateOfId : null,
        updated_at: sql<Date>`now()`,
        revision: sql<number>`revision + 1`,
      })
      .where('id', '=', issue.id)
      .returning('revision')
      .executeTakeFirstOrThrow();
    const { occurredAt } = await appendHistory(trx, { issueId: issue.id, from: issue.status, to: change.to, reason: change.reason });
    const transition = { from: issue.status, to: change.to };
    const event = issueStatusChangedEvent({
      issueId: issue.id,
      orgId: issue.org_id,
      campaignId: issue.campaign_id,
      title: issue.title,
      severity: issue.severity,
      transition,
      reason: change.reason,
      origin: change.origin ?? null,
      occurredAt,
      revision: updated.revision,
    });
    await enqueueDomainEvent(trx, events, event, issue.org_id);
    return { kind: 'changed', transition, revision: updated.revision };
  });
}

/**
 * Assigns or (with null) unassigns an issue; false when there is no such issue (in `orgScope`). A real change
 * bumps the revision and enqueues IssueAssigned in its transaction (no public webhook event maps
 * to assignment); naming the current assignee again changes nothing and emits nothing.
 */
export async function setIssueAssignee(
  db: Kysely<IssueDatabase>,
  events: EventTarget,
  change: { issueId: string; assigneeName: string | null; orgScope?: string | undefined },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const issue = await issuesIn(trx, change.orgScope)
      .select(['id', 'org_id', 'campaign_id', 'title', 'assignee_name'])
      .where('id', '=', change.issueId)
      .forUpdate()
      .executeTakeFirst();
    if (!issue) return false;
    if (issue.assignee_name === change.assigneeName) return true;
    const updated = await trx
      .updateTable('issues')
      .set({ assignee_name: change.assigneeName, updated_at: sql<Date>`now()`, revision: sql<number>`revision + 1` })
      .where('id', '=', issue.id)
      .returning(['revision', 'updated_at'])
      .executeTakeFirstOrThrow();
    const event = issueAssignedEvent({
      issueId: issue.id,
      orgId: issue.org_id,
      campaignId: issue.campaign_id,
      title: issue.title,
      assigneeName: change.assigneeName,
      oldAssigneeName: issue.assignee_name,
      occurredAt: updated.updated_at,
      revision: updated.revision,
    });
    await enqueueDomainEvent(trx, events, event, issue.org_id);
    return true;
  });
}
