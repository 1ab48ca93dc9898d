import type { DomainEvent } from '@preflight/events';

const quoted = (name: string | undefined) => (name ? `“${name}”` : 'a campaign');

/** The one line a chat channel shows for a campaign's event. */
export function campaignText(event: DomainEvent): string {
  switch (event.kind) {
    case 'CampaignLaunched':
      return `Campaign ${quoted(event.message.name)} launched.`;
    case 'CampaignClosed':
      return `Campaign ${quoted(event.message.name)} closed.`;
    case 'ReportSealed':
      return `Launch report of ${quoted(event.message.name)} sealed: ${event.message.decision || 'no decision'} (${event.message.signedCount} of ${event.message.requiredCount} signed).`;
    case 'TesterCompleted':
      return `${event.message.testerName ?? 'A tester'} completed ${quoted(event.message.campaignName)} with ${event.message.issuesReported} issue${event.message.issuesReported === 1 ? '' : 's'} reported.`;
    default:
      return `${event.kind} happened.`;
  }
}
