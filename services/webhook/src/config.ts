import { eventsConfigShape, natsAuthConfigShape } from '@preflight/bus';
import { env, loadConfig } from '@preflight/config';
import { databaseConfigShape, listenConfigShape, logConfigShape } from '@preflight/service-kit';
import { keyRingField } from '@preflight/secret-box';

/** Environment of the webhook service, read once at start (docs/development-reference.md, "Ports, URLs"). */
export const webhookConfigShape = {
  // HTTP
  WEBHOOK_PORT: env.port(8083),

  // Database: the service owns one schema and nothing else.
  ...databaseConfigShape('webhook'),

  // Signing secrets at rest: `id:base64(32 bytes)`, comma-separated. The first key encrypts new
  // secrets, every listed key decrypts (rotation: prepend the new key, keep the old ones).
  WEBHOOK_SECRET_KEYS: keyRingField(),
  // How often every stored secret is opened with that ring (the `secrets_undecryptable` gauge); 0: only at start.
  WEBHOOK_SECRET_CHECK_INTERVAL_MS: env.int(60_000, { min: 0, max: 86_400_000 }),

  // Core NATS, for the signal that drops the delivery service's cached endpoints when they
  // change (the webhook service publishes no domain events, so it needs no stream settings).
  NATS_URL: eventsConfigShape.NATS_URL,
  EVENTS_SUBJECT_PREFIX: eventsConfigShape.EVENTS_SUBJECT_PREFIX,
  // A creds file and client TLS, as for the services on the stream.
  ...natsAuthConfigShape,

  // The delivery service: the admin list's per-endpoint stats (POST /internal/v1/endpoint-stats).
  DELIVERY_URL: env.url(['http', 'https'], 'http://127.0.0.1:8084'),

  // Lifts the public-address rule on webhook URLs: local development and tests only.
  WEBHOOK_ALLOW_PRIVATE_TARGETS: env.bool(false),

  ...logConfigShape,
  ...listenConfigShape,
};

export type WebhookConfig = ReturnType<typeof loadWebhookConfig>;

export function loadWebhookConfig(source: Record<string, string | undefined> = process.env, exitOnError = true) {
  return loadConfig(webhookConfigShape, { source, exitOnError });
}
