import { eventsConfigShape } from '@preflight/bus';
import { env, loadConfig } from '@preflight/config';
import { databaseConfigShape, listenConfigShape, logConfigShape } from '@preflight/service-kit';

/**
 * The campaign service's environment, read once at start. Defaults suit a laptop running
 * Postgres on localhost; deployments override them through the chart.
 */
export const campaignConfigShape = {
  // HTTP: the port the gateway forwards campaign routes to (0 picks a free one, for tests).
  CAMPAIGN_PORT: env.port(8081),

  // Database: the one schema this service owns.
  ...databaseConfigShape('campaign'),

  // Domain events: NATS JetStream. The service makes sure the stream exists (idempotently) at
  // start, publishes its events through the transactional outbox and projects issue events
  // into readiness verdicts with the durable consumer `campaign-readiness`.
  ...eventsConfigShape,

  ...logConfigShape,
  ...listenConfigShape,
};

export type CampaignConfig = ReturnType<typeof loadCampaignConfig>;

export function loadCampaignConfig(opts: { source?: Record<string, string | undefined>; exitOnError?: boolean } = {}) {
  return loadConfig(campaignConfigShape, opts);
}
