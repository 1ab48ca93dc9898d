import type { IncomingWebhookSendArguments } from '@slack/webhook';
import type { ChatMessage, IssueCard } from '../provider.ts';
import { OPEN_ISSUE_LABEL, TEST_MESSAGE, headline, issueFacts, issueTitle, truncate } from '../chat-text.ts';

/** Block Kit limits (docs.slack.dev/reference/block-kit): longer text is cut, never refused. */
const SECTION_TEXT_MAX = 3000;
const FIELD_TEXT_MAX = 2000;
const FIELDS_MAX = 10;
const HEADER_TEXT_MAX = 150;
const FALLBACK_TEXT_MAX = 3000;

type SlackPayload = Required<Pick<IncomingWebhookSendArguments, 'text'>> & Pick<IncomingWebhookSendArguments, 'blocks'>;

/** Slack's three control characters in mrkdwn: user text must not open links or mentions (`<!channel>`). */
export const escapeMrkdwn = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const mrkdwn = (text: string, max: number) => ({ type: 'mrkdwn' as const, text: truncate(text, max, escapeMrkdwn) });

function openButton(issue: IssueCard) {
  return { type: 'button' as const, action_id: 'open-issue', text: { type: 'plain_text' as const, text: OPEN_ISSUE_LABEL }, url: issue.link };
}

function createdBlocks(issue: IssueCard): NonNullable<SlackPayload['blocks']> {
  // The label stays outside the escaping: it is ours and bold; the value is the user's.
  const fields = issueFacts(issue)
    .slice(0, FIELDS_MAX)
    .map((fact) => ({ type: 'mrkdwn' as const, text: `*${fact.label}*\n${truncate(fact.value, FIELD_TEXT_MAX - fact.label.length - 3, escapeMrkdwn)}` }));
  return [
    // plain_text is shown as is, so the title needs no escaping there.
    { type: 'header', text: { type: 'plain_text', text: truncate(issueTitle(issue), HEADER_TEXT_MAX), emoji: false } },
    { type: 'section', fields },
    { type: 'actions', elements: [openButton(issue)] },
  ];
}

/** The Incoming Webhook payload for one event: the fallback `text` (notifications) and the blocks. */
export function slackPayload(message: ChatMessage): SlackPayload {
  const line = headline(message);
  const text = truncate(line, FALLBACK_TEXT_MAX, escapeMrkdwn);
  if (message.event === 'IssueCreated') return { text, blocks: createdBlocks(message.issue) };
  const section = { type: 'section' as const, text: mrkdwn(line, SECTION_TEXT_MAX), ...(message.issue ? { accessory: openButton(message.issue) } : {}) };
  return { text, blocks: [section] };
}

export const slackTestPayload = (): SlackPayload => ({ text: escapeMrkdwn(TEST_MESSAGE) });
