import { ISSUE_TRANSITIONS, type IssueStatus } from '@preflight/contract';

// The workflow itself is the contract's (libs/contract workflows.ts, docs/state-machines.md), shared with the console.
export { ISSUE_TRANSITIONS };

export const INITIAL_ISSUE_STATUS = 'New' satisfies IssueStatus;

export function allowedTransitions(from: IssueStatus): readonly IssueStatus[] {
  return ISSUE_TRANSITIONS[from];
}

export function canTransition(from: IssueStatus, to: IssueStatus): boolean {
  return (ISSUE_TRANSITIONS[from] as readonly IssueStatus[]).includes(to);
}

export interface StatusTransition {
  from: IssueStatus;
  to: IssueStatus;
}

// What each transition is called publicly (IssueUpdated, IssueClosed, RetestRequested,
// RetestCompleted) is decided in one place for every service: `issueStatusEvent()` /
// `ISSUE_STATUS_EVENT` in @preflight/events, applied to the IssueStatusChanged event.
