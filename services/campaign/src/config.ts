import { eventsConfigShape } from '@preflight/bus';
import { env, loadConfig } from '@preflight/config';

/**
 * The campaign service's environment, read once at start. Defaults suit a laptop running
 * Postgres on localhost; deployments override them through the chart.
 */
export const campaignConfigShape = {
  // HTTP: the port the gateway forwards campaign routes to (0 picks a free one, for tests).
  CAMPAIGN_PORT: env.port(8081),

  // Database: the one schema this service owns.
  DATABASE_URL: env.url(['postgres', 'postgresql'], 'postgres://postgres@127.0.0.1:5432/preflight'),
  DB_SCHEMA: env.identifier('campaign'),
  DB_POOL_MAX: env.int(10, { min: 1, max: 200 }),
  // Off where a Helm hook Job runs `main.ts migrate` before the pods start.
  MIGRATE_ON_START: env.bool(true),

  // Domain events: NATS JetStream. The service makes sure the stream exists (idempotently) at
  // start, publishes its events through the transactional outbox and projects issue events
  // into readiness verdicts with the durable consumer `campaign-readiness`.
  ...eventsConfigShape,

  // Logging.
  LOG_LEVEL: env.oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
};

export type CampaignConfig = ReturnType<typeof loadCampaignConfig>;

export function loadCampaignConfig(opts: { source?: Record<string, string | undefined>; exitOnError?: boolean } = {}) {
  return loadConfig(campaignConfigShape, opts);
}
