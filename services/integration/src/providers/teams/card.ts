import { Template } from 'adaptivecards-templating';
import type { ChatMessage } from '../provider.ts';
import { NEW_ISSUE, OPEN_ISSUE_LABEL, TEST_MESSAGE, headline, issueFacts, issueTitle, truncate, type IssueFact } from '../chat-text.ts';

/** Teams refuses webhook messages over 28 KB: text is cut well below that, never refused. */
const TEXT_MAX = 3000;
const FACT_VALUE_MAX = 1000;

/** What the card shows; the template binds to it, so user text is only ever data. */
interface CardData {
  title: string;
  summary: string | null;
  facts: IssueFact[];
  link: string | null;
}

// Version 1.4: Teams renders up to 1.5; the card needs nothing newer, so older clients show it too.
const cardTemplate = new Template({
  $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
  type: 'AdaptiveCard',
  version: '1.4',
  msteams: { width: 'Full' },
  body: [
    { type: 'TextBlock', $when: '${summary != null}', text: '${summary}', isSubtle: true, spacing: 'None', wrap: true },
    { type: 'TextBlock', text: '${title}', size: 'Large', weight: 'Bolder', wrap: true },
    { type: 'FactSet', $when: '${count(facts) > 0}', facts: [{ $data: '${facts}', title: '${label}', value: '${value}' }] },
  ],
  actions: [{ type: 'Action.OpenUrl', $when: '${link != null}', title: OPEN_ISSUE_LABEL, url: '${link}' }],
});

export type AdaptiveCard = Record<string, unknown>;

const expand = (data: CardData): AdaptiveCard => cardTemplate.expand({ $root: data }) as AdaptiveCard;

/** The Adaptive Card for one event: a new issue with its facts, anything else as its one line. */
export function teamsCard(message: ChatMessage): AdaptiveCard {
  if (message.event === 'IssueCreated') {
    const facts = issueFacts(message.issue).map((fact) => ({ ...fact, value: truncate(fact.value, FACT_VALUE_MAX) }));
    return expand({ title: issueTitle(message.issue), summary: NEW_ISSUE, facts, link: message.issue.link });
  }
  return expand({ title: truncate(headline(message), TEXT_MAX), summary: null, facts: [], link: message.issue?.link ?? null });
}

export const teamsTestCard = (): AdaptiveCard => expand({ title: TEST_MESSAGE, summary: null, facts: [], link: null });

/** The message envelope Workflows ("post card in a chat or channel") and incoming webhooks take. */
export const teamsEnvelope = (card: AdaptiveCard) => ({
  type: 'message',
  attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }],
});
