import type { JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { startConsumer, startOutboxRelay, type OutboxRelay } from '@preflight/bus';
import { consumerBase, migrateService, runService, type RunOptions, type RunningService, type ServiceSpec } from '@preflight/service-kit';
import type { CampaignConfig } from './config.ts';
import { READINESS_CONSUMER, readinessBatchHandler, readinessSubject } from './consumers/readiness.ts';
import { campaignMetrics } from './metrics.ts';
import { campaignMigrations } from './migrations/index.ts';
import { registrations } from './routes/index.ts';
import type { CampaignDatabase } from './storage/schema.ts';
import type { Logger } from '@preflight/log';

interface CampaignHandle {
  nats: NatsConnection;
  js: JetStreamClient;
  /**
   * The outbox relay, for tests of the crash window: `stopRelay()` stops this process's relay
   * (as if it had died after the commit), `startRelay()` starts a fresh one (as a restarted
   * replica would). Shutdown stops whichever is running.
   */
  stopRelay(): Promise<void>;
  startRelay(): void;
}

export type RunningCampaignService = RunningService<CampaignDatabase, CampaignHandle>;

/**
 * The campaign service: its outbox relay, the readiness consumer (issue events projected into
 * verdicts) and routes. Shutdown stops the consumer and the relay before the pool and NATS.
 */
export const campaignService: ServiceSpec<CampaignDatabase, CampaignConfig, CampaignHandle> = {
  name: 'campaign',
  // Migrations see the schema as it was at their time, not as storage/schema.ts describes it now.
  migrations: campaignMigrations,
  port: (config) => config.CAMPAIGN_PORT,
  // The issue service's campaign directory reads through to it.
  peers: ['issue'],
  events: true,
  async wire(resources) {
    const { config, logger, database, registry, nats } = resources;
    const { conn, js } = nats!;
    const metrics = campaignMetrics(registry);
    // Where this deployment's events go and come from (isolated per test run).
    const events = { subjectPrefix: config.EVENTS_SUBJECT_PREFIX };
    let relay: OutboxRelay | undefined;
    const startRelay = () => {
      relay ??= startOutboxRelay({ db: database.db, schema: database.schema, pool: database.pool, js, logger, registry });
    };
    const stopRelay = async () => {
      const current = relay;
      relay = undefined;
      await current?.stop();
    };
    startRelay();
    const consumer = await startConsumer({
      ...consumerBase(resources),
      durable: READINESS_CONSUMER,
      filterSubjects: [readinessSubject(events.subjectPrefix)],
      // Batches of different campaigns proceed side by side; those of one campaign queue on its
      // statistics row. No deadlock: every batch locks its campaigns in campaignId order.
      concurrency: 2,
      // A verdict may trail its issue change by a few ms (the promise is within a second): one
      // recompute per campaign per 25 ms instead of one per event when issues trickle in.
      gatherMs: 25,
      batchHandler: readinessBatchHandler({ events, logger, metrics }),
    });
    return {
      mount: (app) => {
        for (const register of registrations) register(app, { db: database.db, events, metrics });
      },
      releases: [() => consumer.stop(), stopRelay],
      handle: { nats: conn, js, stopRelay, startRelay },
    };
  },
};

export const startCampaignService = (config: CampaignConfig, opts: Omit<RunOptions<CampaignConfig>, 'config'> = {}): Promise<RunningCampaignService> =>
  runService(campaignService, { ...opts, config });

/** `main.ts migrate`, the Helm hook Job's entry: brings the schema up to date and returns. */
export const migrateCampaignSchema = (config: CampaignConfig, logger: Logger): Promise<void> => migrateService(campaignService, config, logger);
