import type { ChatMessage, IssueCard } from './provider.ts';

/** The wording Slack and Teams messages share: one headline per event and the issue's labelled facts. */

export const TEST_MESSAGE = 'Preflight is connected: issues of this connection will be announced in this channel.';
export const OPEN_ISSUE_LABEL = 'Open in Preflight';
export const NEW_ISSUE = 'New issue';

/** Titles longer than this are shortened in every message (Slack's header limit is 150). */
export const TITLE_MAX = 150;

/**
 * `text` (passed through `escape` when given) in at most `max` UTF-16 units, the last one an
 * ellipsis when anything was cut; never splits a character or an escape.
 */
export function truncate(text: string, max: number, escape: (text: string) => string = (t) => t): string {
  const whole = escape(text);
  if (whole.length <= max) return whole;
  let out = '';
  for (const char of text) {
    const piece = escape(char);
    if (out.length + piece.length > max - 1) break;
    out += piece;
  }
  return `${out}…`;
}

export interface IssueFact {
  label: string;
  value: string;
}

/** What the issue says besides its title, in the order messages list it; absent values are left out. */
export function issueFacts(issue: IssueCard): IssueFact[] {
  const facts: Array<[string, string | null]> = [
    ['Severity', issue.severity],
    ['Type', issue.type],
    ['Campaign', issue.campaignName],
    ['Issue', `#${issue.seqNumber}`],
    ['Page', issue.pageUrl],
    ['Reporter', issue.reporter],
  ];
  return facts.filter((f): f is [string, string] => f[1] !== null && f[1] !== '').map(([label, value]) => ({ label, value }));
}

/** The issue's title as messages show it. */
export const issueTitle = (issue: IssueCard): string => truncate(issue.title, TITLE_MAX);

/** The message's one line: what happened to which issue. */
export function headline(message: ChatMessage): string {
  const issue = message.issue;
  const subject = issue ? `#${issue.seqNumber} ${issueTitle(issue)}` : '';
  switch (message.event) {
    case 'IssueCreated':
      return `${NEW_ISSUE} ${subject}`;
    case 'IssueAssigned':
      return `${subject}: assigned to ${message.assigneeName ?? 'nobody'}`;
    case 'Other':
      return subject ? `${subject}: ${message.text}` : message.text;
    default: {
      const reason = message.reason ? ` (${message.reason})` : '';
      return `${subject}: ${message.oldStatus} → ${message.issue.status}${reason}`;
    }
  }
}
