import type { CallResult, SafeFetch } from '../provider.ts';
import { bodyDetail, chatWebhookProvider, webhookRefusal } from '../chat-webhook.ts';
import { teamsCard, teamsEnvelope, teamsTestCard, type AdaptiveCard } from './card.ts';

/**
 * Teams has no official webhook SDK: the card is POSTed as the Workflows trigger documents it.
 * Workflows answers 202 Accepted, a legacy Office 365 connector 200 with body `1`; any 2xx is success.
 */
async function send(webhookUrl: string, fetch: SafeFetch, card: AdaptiveCard): Promise<CallResult> {
  const response = await fetch(webhookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(teamsEnvelope(card)),
  });
  // The status decides; a body cut off by the deadline only loses the detail.
  const body = await response.text().catch(() => '');
  if (response.status < 200 || response.status >= 300) throw webhookRefusal(response.status, response.headers, 'Teams', bodyDetail(body));
  return { statusCode: response.status, detail: bodyDetail(body) || 'accepted' };
}

export const teamsProvider = chatWebhookProvider('teams', send, teamsCard, teamsTestCard);
