import { CAMPAIGN_TRANSITIONS, ISSUE_TRANSITIONS, type CampaignStatus, type IssueStatus } from '@preflight/contract';

/**
 * Which moves the pages offer: the contract's state machines (libs/contract workflows.ts), which
 * the campaign and issue services enforce. A refused move is still a 409 the page shows.
 */
export function campaignMoves(from: CampaignStatus | null): readonly CampaignStatus[] {
  return from ? CAMPAIGN_TRANSITIONS[from] : [];
}

export function issueMoves(from: IssueStatus | null): readonly IssueStatus[] {
  return from ? ISSUE_TRANSITIONS[from] : [];
}

/** The button's words for a campaign move. */
export function campaignMoveLabel(from: CampaignStatus | null, to: CampaignStatus): string {
  if (to === 'Active') return from === 'Draft' ? 'Launch' : 'Resume';
  if (to === 'Paused') return 'Pause';
  if (to === 'Closed') return 'Close';
  return to;
}
