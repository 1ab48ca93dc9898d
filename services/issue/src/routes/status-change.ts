import type { EventTarget } from '@preflight/bus';
import type { IssueStatus } from '@preflight/contract';
import type { Kysely } from '@preflight/db';
import { conflict, notFound, validationFailed } from '@preflight/http';
import { changeIssueStatus } from '../storage/issue-changes.ts';
import type { IssueDatabase } from '../storage/schema.ts';

/**
 * What POST /admin/v1/issues/:id/status and POST /internal/v1/issues/:id/status share (their
 * request shapes are the manifest's): applies one workflow step (storage/issue-changes.ts) and
 * turns a refusal into its problem: 404 no such issue (in `orgScope`, a console member's
 * organisation), 409 with `currentStatus` and `allowedTransitions`, 422 a duplicateOfId that
 * names no other issue of the campaign. Returns when the change committed.
 */
export async function applyStatusChange(
  db: Kysely<IssueDatabase>,
  events: EventTarget,
  issueId: string,
  body: { to: IssueStatus; reason: string | null; duplicateOfId: string | null; origin: string | null; orgScope?: string | undefined },
): Promise<void> {
  const outcome = await changeIssueStatus(db, events, { issueId, ...body });
  switch (outcome.kind) {
    case 'not_found':
      throw notFound('issue', issueId);
    case 'not_allowed':
      throw conflict(
        `The issue is ${outcome.current}; it can move to ${outcome.allowed.join(', ')}, not to ${body.to}.`,
        { currentStatus: outcome.current, allowedTransitions: outcome.allowed },
      );
    case 'bad_duplicate':
      throw validationFailed({ duplicateOfId: ['Must name another issue of the same campaign.'] });
    case 'changed':
      return;
  }
}
