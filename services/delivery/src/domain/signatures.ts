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
export function serviceSignature(keys: SecretKeys, body: Uint8Array): string {
  return `sha256=${createHmac('sha256', keys.service).update(body).digest('hex')}`;
}

export function standardWebhookSignature(keys: SecretKeys, id: string, timestampSeconds: number, body: Uint8Array): string {
  const mac = createHmac('sha256', keys.standard).update(`${id}.${timestampSeconds}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/** An endpoint's secret as the HMAC keys of its two signatures. */
export interface SecretKeys {
  /** The secret's UTF-8 bytes (`X-Service-Signature`). */
  service: KeyObject;
  /** The secret base64-decoded, `whsec_` prefix or not (Standard Webhooks). */
  standard: KeyObject;
}

/** The current secret's keys and, during a rotation's grace, the previous one's until it expires. */
export interface SigningKeys extends SecretKeys {
  previous?: SecretKeys & { until: number };
}

function secretKeys(secret: string): SecretKeys {
  return {
    service: createSecretKey(Buffer.from(secret, 'utf8')),
    standard: createSecretKey(Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64')),
  };
}

export interface SigningSecrets {
  secret: string;
  previousSecret?: string | null | undefined;
  previousSecretExpiresAt?: string | null | undefined;
}

function signingKeys(e: SigningSecrets): SigningKeys {
  const until = e.previousSecretExpiresAt ? Date.parse(e.previousSecretExpiresAt) : Number.NaN;
  if (!e.previousSecret || !(until > Date.now())) return secretKeys(e.secret);
  return { ...secretKeys(e.secret), previous: { ...secretKeys(e.previousSecret), until } };
}

/**
 * Whether the webhook service could give the endpoint's secret: `secretUnavailable` (no key of
 * its ring opens it) means the endpoint exists and its deliveries wait for the key, unsigned
 * never (issue 22, finding 8).
 */
export const signable = <E extends { secret: string | null; secretUnavailable?: boolean | undefined }>(e: E): e is E & { secret: string } =>
  e.secret !== null && e.secretUnavailable !== true;

const keysOfEndpoint = new WeakMap<SigningSecrets, SigningKeys>();

/**
 * The signing keys of an endpoint as the endpoint cache holds it, made once per cached
 * endpoint object (turning a secret into keys costs about as much as signing). A changed
 * secret comes with a new endpoint object, so it gets new keys.
 */
export function signingKeysOf(endpoint: SigningSecrets): SigningKeys {
  let keys = keysOfEndpoint.get(endpoint);
  if (!keys) keysOfEndpoint.set(endpoint, (keys = signingKeys(endpoint)));
  return keys;
}

export const USER_AGENT = 'Preflight-Webhooks/1.0';

/**
 * Every header of one attempt, lower-case names. During a rotation's grace (docs/webhooks.md,
 * "Rotating the secret") `X-Service-Signature` stays the previous secret's, so a receiver
 * that has not switched keeps verifying by the spec's recipe; the new secret's is in
 * `X-Service-Signature-Next`, and `webhook-signature` carries one signature per secret.
 */
export function deliveryHeaders(input: {
  keys: SigningKeys;
  eventType: string;
  envelopeId: string;
  attemptId: string;
  body: Uint8Array;
  now?: Date;
}): Record<string, string> {
  const now = (input.now ?? new Date()).getTime();
  const timestamp = Math.floor(now / 1000);
  const { keys } = input;
  const previous = keys.previous && keys.previous.until > now ? keys.previous : undefined;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-service-event': input.eventType,
    'x-service-delivery': input.attemptId,
    'x-service-signature': serviceSignature(previous ?? keys, input.body),
    'webhook-id': input.envelopeId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardWebhookSignature(keys, input.envelopeId, timestamp, input.body),
  };
  if (previous) {
    headers['x-service-signature-next'] = serviceSignature(keys, input.body);
    headers['webhook-signature'] += ` ${standardWebhookSignature(previous, input.envelopeId, timestamp, input.body)}`;
  }
  return headers;
}
