import { createHmac } from 'node:crypto';

/**
 * The two signatures every attempt carries, both over the exact body bytes:
 *
 * - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the body keyed with the endpoint's
 *   secret as UTF-8 text (public-api-v1.md 6.4).
 * - Standard Webhooks (standardwebhooks.com): `webhook-id` (the envelope id, stable across
 *   retries), `webhook-timestamp` (unix seconds) and `webhook-signature: v1,<base64>`, the
 *   HMAC-SHA256 of `${id}.${timestamp}.${body}` keyed with the base64-DECODED secret, so that
 *   `new Webhook('whsec_' + secret).verify(body, headers)` accepts it.
 */
export function serviceSignature(secret: string, body: Uint8Array): string {
  return `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')}`;
}

export function standardWebhookSignature(secret: string, id: string, timestampSeconds: number, body: Uint8Array): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

export const USER_AGENT = 'Preflight-Webhooks/1.0';

/** Every header of one attempt, lower-case names. */
export function deliveryHeaders(input: {
  secret: string;
  eventType: string;
  envelopeId: string;
  attemptId: string;
  body: Uint8Array;
  now?: Date;
}): Record<string, string> {
  const timestamp = Math.floor((input.now ?? new Date()).getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-service-event': input.eventType,
    'x-service-delivery': input.attemptId,
    'x-service-signature': serviceSignature(input.secret, input.body),
    'webhook-id': input.envelopeId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardWebhookSignature(input.secret, input.envelopeId, timestamp, input.body),
  };
}
