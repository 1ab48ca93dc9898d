import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

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
export function serviceSignature(keys: SigningKeys, body: Uint8Array): string {
  return `sha256=${createHmac('sha256', keys.service).update(body).digest('hex')}`;
}

export function standardWebhookSignature(keys: SigningKeys, id: string, timestampSeconds: number, body: Uint8Array): string {
  const mac = createHmac('sha256', keys.standard).update(`${id}.${timestampSeconds}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/** An endpoint's secret as the HMAC keys of its two signatures. */
export interface SigningKeys {
  /** The secret's UTF-8 bytes (`X-Service-Signature`). */
  service: KeyObject;
  /** The secret base64-decoded, `whsec_` prefix or not (Standard Webhooks). */
  standard: KeyObject;
}

function signingKeys(secret: string): SigningKeys {
  return {
    service: createSecretKey(Buffer.from(secret, 'utf8')),
    standard: createSecretKey(Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64')),
  };
}

const keysOfEndpoint = new WeakMap<{ secret: string }, SigningKeys>();

/**
 * The signing keys of an endpoint as the endpoint cache holds it, made once per cached
 * endpoint object: turning the secret into keys was ~40 % of signing a 1 KB body twice. Held
 * only as long as the cache holds the endpoint (a WeakMap), so a changed secret, which comes
 * with a new endpoint object, gets new keys.
 */
export function signingKeysOf(endpoint: { secret: string }): SigningKeys {
  let keys = keysOfEndpoint.get(endpoint);
  if (!keys) keysOfEndpoint.set(endpoint, (keys = signingKeys(endpoint.secret)));
  return keys;
}

export const USER_AGENT = 'Preflight-Webhooks/1.0';

/** Every header of one attempt, lower-case names. */
export function deliveryHeaders(input: {
  keys: SigningKeys;
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
    'x-service-signature': serviceSignature(input.keys, input.body),
    'webhook-id': input.envelopeId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardWebhookSignature(input.keys, input.envelopeId, timestamp, input.body),
  };
}
