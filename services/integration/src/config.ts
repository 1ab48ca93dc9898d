import { breakerConfigShape } from '@preflight/breakers';
import { eventsConfigShape } from '@preflight/bus';
import { env, loadConfig } from '@preflight/config';
import { keyRingField } from '@preflight/secret-box';
import { databaseConfigShape, listenConfigShape, logConfigShape } from '@preflight/service-kit';

/** Environment of the integration service, read once at start (docs/development-reference.md, "Ports, URLs"). */
export const integrationConfigShape = {
  // HTTP: the admin integration routes, the trackers' inbound hooks, health and metrics.
  INTEGRATION_PORT: env.port(8085),

  // Database: the service owns one schema (connections, jobs, links, activity, inbox).
  ...databaseConfigShape('integration', { poolMin: 2 }),

  // Domain events: every event under the prefix reaches the durable consumer `integration-sync`.
  ...eventsConfigShape,

  // Provider credentials and inbound secrets at rest, like the webhook service's signing
  // secrets: `id:base64(32 bytes)`, comma-separated; the first key encrypts, every key decrypts.
  INTEGRATION_SECRET_KEYS: keyRingField(),
  // How often every stored credential and inbound secret is opened with that ring (the
  // `secrets_undecryptable` gauge; connections waiting for a key that is back resume); 0: only at start.
  INTEGRATION_SECRET_CHECK_INTERVAL_MS: env.int(60_000, { min: 0, max: 86_400_000 }),

  // The issue service's internal API: issue details for tracker bodies, status changes from trackers.
  ISSUE_URL: env.url(['http', 'https'], 'http://127.0.0.1:8082'),
  // What chat messages and tracker issues link to: `{issueId}` and `{campaignId}` are replaced.
  ISSUE_LINK_TEMPLATE: env.string('http://127.0.0.1:8080/dashboard/issues/{issueId}'),
  // The inbound URL a tracker connection shows, before `/integrations/v1/hooks/<id>`: the public ingress.
  PUBLIC_BASE_URL: env.url(['http', 'https'], 'http://127.0.0.1:8080'),

  // One provider call, connection to last byte.
  INTEGRATION_CALL_TIMEOUT_MS: env.int(10_000, { min: 100, max: 120_000 }),
  // Calls in flight at once: per connection (per replica) and in all (per replica).
  INTEGRATION_MAX_CONCURRENCY_PER_CONNECTION: env.int(8, { min: 1, max: 1_000 }),
  INTEGRATION_WORKERS: env.int(64, { min: 1, max: 10_000 }),
  // Tries of one job before it is given up (the waits grow from 1 s to 1 h: domain/backoff.ts).
  INTEGRATION_MAX_ATTEMPTS: env.int(12, { min: 1, max: 100 }),
  // The least wait before a tracker create that failed is tried again: the retry first searches
  // for the issue the failed try may have made, and Jira's search lags new issues by seconds.
  INTEGRATION_CREATE_RETRY_MIN_MS: env.int(30_000, { min: 0, max: 3_600_000 }),
  // A claimed job whose replica died is claimed again after this; keep it above the longest job
  // (a tracker create makes up to three provider calls and one issue-service read).
  INTEGRATION_LEASE_MS: env.int(120_000, { min: 1_000, max: 3_600_000 }),
  // Safety poll besides NOTIFY.
  INTEGRATION_POLL_INTERVAL_MS: env.int(1_000, { min: 10, max: 60_000 }),

  // Per-connection breaker (opossum): opens when more than ERROR_PERCENT of at least
  // VOLUME_THRESHOLD calls in the window got no usable answer; half-opens after RESET_MS.
  // While it is open the connection's jobs wait; other connections are not touched.
  ...breakerConfigShape('INTEGRATION'),

  // Activity entries and finished jobs are kept this many days.
  INTEGRATION_ACTIVITY_RETENTION_DAYS: env.int(30, { min: 1, max: 3_650 }),

  // Lifts the public-address rule on provider URLs (webhook URLs, API base URLs): development and tests only.
  WEBHOOK_ALLOW_PRIVATE_TARGETS: env.bool(false),

  ...logConfigShape,
  ...listenConfigShape,
};

export type IntegrationConfig = ReturnType<typeof loadIntegrationConfig>;

export function loadIntegrationConfig(source: Record<string, string | undefined> = process.env, exitOnError = true) {
  return loadConfig(integrationConfigShape, { source, exitOnError });
}
