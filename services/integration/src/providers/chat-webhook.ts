import { z } from 'zod';
import { refusal, type HeaderSource } from './refusals.ts';
import { ProviderError, type CallResult, type ChatKind, type ChatMessage, type ChatProviderModule, type SafeFetch } from './provider.ts';

/** What Slack and Teams connections share: a webhook URL is their whole configuration and credential. */

export const chatConfigSchema = z.strictObject({}, { error: 'Must be an empty object: the webhook URL is all a chat connection needs.' });
export type ChatConfig = z.infer<typeof chatConfigSchema>;

// http is accepted for tests and the private-targets dev mode; the address rules are checked elsewhere.
export const chatCredentialsSchema = z.strictObject(
  {
    webhookUrl: z.url({ protocol: /^https?$/, error: (issue) => (issue.input === undefined ? 'Is required.' : 'Must be an http or https URL.') }),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? 'Must have no properties besides webhookUrl.' : 'Must be an object with webhookUrl.') },
);
export type ChatCredentials = z.infer<typeof chatCredentialsSchema>;

export const chatUrls = (_config: ChatConfig, credentials: ChatCredentials): string[] => [credentials.webhookUrl];

/**
 * The ProviderError for a refused post. The webhook URL is the credential, so a webhook that is
 * gone (404: revoked, flow deleted; 410: channel archived) is a credentials problem, not a retry.
 */
export function webhookRefusal(status: number, headers: HeaderSource, what: string, detail: string): ProviderError {
  const because = detail ? ` ${detail}` : '';
  if (status === 404 || status === 410) return new ProviderError('credentials', `${what}: HTTP ${status} (webhook is gone)${because}`, status);
  const base = refusal(status, headers, what);
  return new ProviderError(base.kind, `${base.message}${because}`, base.statusCode, base.retryAfterMs);
}

/** The start of a provider's error body for messages, on one line, any URL signature blanked out. */
export const bodyDetail = (body: string): string =>
  body
    .replace(/sig=[^&\s"']+/gi, 'sig=…')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);

/**
 * A chat provider whose whole connection is a webhook URL: `send` posts one payload to it,
 * `payloadOf` turns a message into that payload, `testPayload` is the "connected" message.
 */
export function chatWebhookProvider<P>(
  kind: ChatKind,
  send: (webhookUrl: string, fetch: SafeFetch, payload: P) => Promise<CallResult>,
  payloadOf: (message: ChatMessage) => P,
  testPayload: () => P,
): ChatProviderModule<ChatConfig, ChatCredentials> {
  return {
    kind,
    configSchema: chatConfigSchema,
    credentialsSchema: chatCredentialsSchema,
    urls: chatUrls,
    client(_config, credentials, fetch) {
      return {
        post: (message) => send(credentials.webhookUrl, fetch, payloadOf(message)),
        test: () => send(credentials.webhookUrl, fetch, testPayload()),
      };
    },
  };
}
