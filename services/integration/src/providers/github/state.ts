import type { IssueStatus } from '@preflight/contract';
import type { InboundState } from '../provider.ts';

/**
 * GitHub's issue states as the service names them. The same string comes out of create,
 * syncStatus and the inbound hook for one tracker state, so echoes can be recognised:
 * `open`, `closed:completed`, `closed:not_planned`, `closed:duplicate`.
 */

export interface GithubIssueState {
  state: string;
  state_reason?: string | null;
}

type CloseReason = 'completed' | 'not_planned' | 'duplicate';

/** A closed issue without a reason (closed before GitHub had them) counts as completed. */
function closeReasonOf(reason: string | null | undefined): CloseReason {
  return reason === 'not_planned' || reason === 'duplicate' ? reason : 'completed';
}

export function stateOf(issue: GithubIssueState): string {
  return issue.state === 'closed' ? `closed:${closeReasonOf(issue.state_reason)}` : 'open';
}

/** What an inbound close or reopen means; a duplicate on GitHub is not planned here. */
export function inboundStateOf(issue: GithubIssueState): InboundState {
  if (issue.state !== 'closed') return { kind: 'reopened' };
  return closeReasonOf(issue.state_reason) === 'completed' ? { kind: 'closed-completed' } : { kind: 'closed-not-planned' };
}

/** The PATCH that puts an issue where a Preflight status belongs. */
export type GithubTarget = { state: 'open' } | { state: 'closed'; state_reason: 'completed' | 'not_planned' };

const OPEN: GithubTarget = { state: 'open' };
const DONE: GithubTarget = { state: 'closed', state_reason: 'completed' };
const WONT: GithubTarget = { state: 'closed', state_reason: 'not_planned' };

const TARGETS: Record<IssueStatus, GithubTarget> = {
  New: OPEN,
  Acknowledged: OPEN,
  InProgress: OPEN,
  RetestFailed: OPEN,
  Fixed: DONE,
  RetestRequested: DONE,
  RetestFixed: DONE,
  Closed: DONE,
  WontFix: WONT,
  Duplicate: WONT,
};

export const targetOf = (status: IssueStatus): GithubTarget => TARGETS[status];

/** Whether the issue already is where `target` would put it (closed as duplicate counts as not planned). */
export function isAt(issue: GithubIssueState, target: GithubTarget): boolean {
  if (target.state === 'open') return issue.state === 'open';
  if (issue.state !== 'closed') return false;
  const reason = closeReasonOf(issue.state_reason);
  return target.state_reason === 'completed' ? reason === 'completed' : reason !== 'completed';
}
