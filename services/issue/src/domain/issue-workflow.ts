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

/** Public webhook events a status change can emit (public-api-v1.md 6.2). */
export type IssueStatusEvent = 'IssueUpdated' | 'IssueClosed' | 'RetestRequested' | 'RetestCompleted';

/**
 * The one public event a change into each status emits: the most specific one. New is never a
 * target (issues are born New and IssueCreated announces them); it maps for exhaustiveness.
 */
const EVENT_BY_TARGET = {
  New: 'IssueUpdated',
  Acknowledged: 'IssueUpdated',
  InProgress: 'IssueUpdated',
  Fixed: 'IssueUpdated',
  RetestRequested: 'RetestRequested',
  RetestFixed: 'RetestCompleted',
  RetestFailed: 'RetestCompleted',
  Closed: 'IssueClosed',
  WontFix: 'IssueClosed',
  Duplicate: 'IssueClosed',
} as const satisfies Record<IssueStatus, IssueStatusEvent>;

export interface StatusTransition {
  from: IssueStatus;
  to: IssueStatus;
}

export function statusChangeEvent(transition: StatusTransition): IssueStatusEvent {
  return EVENT_BY_TARGET[transition.to];
}
