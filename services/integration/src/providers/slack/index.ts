import { IncomingWebhook, IncomingWebhookHTTPError, type FetchFunction, type IncomingWebhookSendArguments } from '@slack/webhook';
import { ProviderError, type CallResult, type SafeFetch } from '../provider.ts';
import { providerErrorIn } from '../../outbound/safe-fetch.ts';
import { bodyDetail, chatWebhookProvider, webhookRefusal } from '../chat-webhook.ts';
import { slackPayload, slackTestPayload } from './blocks.ts';

/**
 * Posts through the official IncomingWebhook with our SafeFetch as its fetch and no retries of
 * its own (the worker retries). One webhook object per post: it is cheap, and its fetch keeps
 * the response so a 429's Retry-After, which the SDK's error drops, is still at hand.
 */
async function send(webhookUrl: string, safeFetch: SafeFetch, payload: IncomingWebhookSendArguments): Promise<CallResult> {
  let response: Response | undefined;
  const fetch: FetchFunction = async (url, init) => (response = await safeFetch(url, init as RequestInit));
  const webhook = new IncomingWebhook(webhookUrl, { fetch, timeout: 0, retryConfig: { retries: 0 } });
  try {
    const result = await webhook.send(payload);
    return { statusCode: response?.status ?? 200, detail: result.text };
  } catch (err) {
    if (err instanceof IncomingWebhookHTTPError) throw webhookRefusal(err.statusCode, response?.headers, 'Slack', bodyDetail(err.body));
    throw providerErrorIn(err) ?? new ProviderError('unavailable', `Slack: ${(err as Error).message}`);
  }
}

export const slackProvider = chatWebhookProvider('slack', send, slackPayload, slackTestPayload);
