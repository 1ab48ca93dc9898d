import type { CampaignStatus, IssueStatus } from '@preflight/contract';

/**
 * Which moves the pages offer. The campaign and issue services decide (a refused move is a 409
 * the page shows); these copies only spare a member buttons that would be refused. The console
 * may not import the services, so tests/browser/workflows.test.ts checks that the copies equal
 * the services' tables (campaign-lifecycle.ts, issue-workflow.ts).
 */
export const CAMPAIGN_MOVES = {
  Draft: ['Active', 'Closed'],
  Active: ['Paused', 'Closed'],
  Paused: ['Active', 'Closed'],
  Closed: [],
} as const satisfies Record<CampaignStatus, readonly CampaignStatus[]>;

export const ISSUE_MOVES = {
  New: ['Acknowledged', 'InProgress', 'Fixed', 'Closed', 'WontFix', 'Duplicate'],
  Acknowledged: ['InProgress', 'Fixed', 'Closed', 'WontFix', 'Duplicate'],
  InProgress: ['Acknowledged', 'Fixed', 'Closed', 'WontFix', 'Duplicate'],
  Fixed: ['RetestRequested', 'InProgress', 'Closed'],
  RetestRequested: ['RetestFixed', 'RetestFailed'],
  RetestFixed: ['Closed', 'InProgress'],
  RetestFailed: ['InProgress', 'Fixed', 'Closed', 'WontFix'],
  Closed: ['Acknowledged'],
  WontFix: ['Acknowledged'],
  Duplicate: ['Acknowledged'],
} as const satisfies Record<IssueStatus, readonly IssueStatus[]>;

export function campaignMoves(from: CampaignStatus | null): readonly CampaignStatus[] {
  return from ? CAMPAIGN_MOVES[from] : [];
}

export function issueMoves(from: IssueStatus | null): readonly IssueStatus[] {
  return from ? ISSUE_MOVES[from] : [];
}

/** The button's words for a campaign move. */
export function campaignMoveLabel(from: CampaignStatus | null, to: CampaignStatus): string {
  if (to === 'Active') return from === 'Draft' ? 'Launch' : 'Resume';
  if (to === 'Paused') return 'Pause';
  if (to === 'Closed') return 'Close';
  return to;
}
