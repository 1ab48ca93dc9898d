import type { CampaignStatus, IssueStatus } from './enums.ts';

/**
 * The two state machines of the contract (docs/state-machines.md), declared once: the campaign
 * and issue services enforce them (a refused move is a 409), the console offers only the moves
 * they allow. `satisfies` makes the compiler insist on an entry for every status, so a new
 * status cannot be added without deciding its exits here.
 */

/** Where a campaign may go from each status. Closed is final: a closed campaign is history. */
export const CAMPAIGN_TRANSITIONS = {
  Draft: ['Active', 'Closed'],
  Active: ['Paused', 'Closed'],
  Paused: ['Active', 'Closed'],
  Closed: [],
} as const satisfies Record<CampaignStatus, readonly CampaignStatus[]>;

/** The issue workflow: every status and where it may go next. */
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
