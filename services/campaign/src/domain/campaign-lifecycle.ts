import { CAMPAIGN_TRANSITIONS, type CampaignStatus } from '@preflight/contract';

// The lifecycle itself is the contract's (libs/contract workflows.ts), shared with the console.
export { CAMPAIGN_TRANSITIONS };

export const INITIAL_CAMPAIGN_STATUS = 'Draft' satisfies CampaignStatus;

export function allowedTransitions(from: CampaignStatus): readonly CampaignStatus[] {
  return CAMPAIGN_TRANSITIONS[from];
}

export function canTransition(from: CampaignStatus, to: CampaignStatus): boolean {
  return allowedTransitions(from).includes(to);
}

/** The sentence a refused transition answers with: the current state and where it could go. */
export function refusedTransitionDetail(from: CampaignStatus, to: CampaignStatus): string {
  const allowed = allowedTransitions(from);
  return `Campaign is ${from}; it cannot move to ${to}. Allowed: ${allowed.length ? allowed.join(', ') : 'none'}.`;
}
