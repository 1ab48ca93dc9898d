import type { IssueStatus } from '@preflight/contract';

/**
 * The issue workflow: every status and where it may go next. Keyed by every IssueStatus, so a
 * new status cannot be added to the contract without deciding its exits here.
 * Documented in docs/state-machines.md ("Issue").
 */
export const ISSUE_TRANSITIONS = {
  New: ['Acknowledged', 'InProgress', 'Fixed', 'Closed', 'WontFix', 'Duplicate'],
  Acknowledged: ['InProgress', 'Fixed', 'Closed', 'WontFix', 'Duplicate'],
  InProgress: ['Acknowledged', 'Fixed', 'Closed', 'WontFix', 'Duplicate'],
  Fixed: ['RetestRequested', 'InProgress', 'Closed'],
  RetestRequested: ['RetestFixed', 'RetestFailed'],
  RetestFixed: ['Closed', 'InProgress'],
  RetestFailed: ['InProgress', 'Fixed', 'Closed', 'WontFix'],
  // The terminal states reopen into triage.
  Closed: ['Acknowledged'],
  WontFix: ['Acknowledged'],
  Duplicate: ['Acknowledged'],
} as const satisfies Record<IssueStatus, readonly IssueStatus[]>;

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
