import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectNats, ensureStream, eventStreamOptions, startConsumer, startOutboxRelay, type OutboxRelay, type RunningConsumer } from '@preflight/bus';
import { createDatabase, migrateToLatest, type Database } from '@preflight/db';
import { createApp, createRegistry, serve } from '@preflight/http';
import { createLogger, type Logger } from '@preflight/log';
import type { Registry } from 'prom-client';
import type { CampaignConfig } from './config.ts';
import { READINESS_CONSUMER, readinessBatchHandler, readinessSubject } from './consumers/readiness.ts';
import { campaignMetrics } from './metrics.ts';
import { campaignMigrations } from './migrations/index.ts';
import { routes } from './routes/index.ts';
import type { CampaignDatabase } from './storage/schema.ts';

export const SERVICE_NAME = 'campaign';

export interface StartOptions {
  /** Loopback in tests; every interface by default. */
  host?: string;
  /** Off in tests, which run the app inside the test process. */
  exitOnShutdown?: boolean;
  logger?: Logger;
}

export interface RunningCampaignService {
  port: number;
  url: string;
  database: Database<CampaignDatabase>;
  registry: Registry;
  nats: NatsConnection;
  js: JetStreamClient;
  /**
   * The outbox relay, for tests of the crash window: `stopRelay()` stops this process's relay
   * (as if it had died after the commit), `startRelay()` starts a fresh one (as a restarted
   * replica would). Shutdown stops whichever is running.
   */
  stopRelay(): Promise<void>;
  startRelay(): void;
  shutdown(): Promise<void>;
}

export async function migrateCampaignSchema(database: Database<CampaignDatabase>, logger: Logger): Promise<void> {
  // Migrations see the schema as it was at their time, not as storage/schema.ts describes it now.
  await migrateToLatest(database.db, database.schema, campaignMigrations, logger);
}

export function openCampaignDatabase(config: CampaignConfig): Database<CampaignDatabase> {
  return createDatabase<CampaignDatabase>({
    url: config.DATABASE_URL,
    schema: config.DB_SCHEMA,
    poolMax: config.DB_POOL_MAX,
    applicationName: SERVICE_NAME,
  });
}

/**
 * Database and migrations (unless a hook Job runs them), NATS and the events stream, the
 * outbox relay, the readiness consumer, routes, then listen. Shutdown releases them in the
 * reverse order: consumer and relay first (they use both), then the pool, then NATS.
 */
export async function startCampaignService(config: CampaignConfig, opts: StartOptions = {}): Promise<RunningCampaignService> {
  const logger = opts.logger ?? createLogger(SERVICE_NAME, { level: config.LOG_LEVEL });
  const registry = createRegistry(SERVICE_NAME);
  const metrics = campaignMetrics(registry);
  const prefix = config.EVENTS_SUBJECT_PREFIX;
  const database = openCampaignDatabase(config);
  let nats: NatsConnection | undefined;
  let relay: OutboxRelay | undefined;
  let consumer: RunningConsumer | undefined;

  const startRelay = () => {
    if (relay) return;
    relay = startOutboxRelay({ db: database.db, schema: database.schema, pool: database.pool, js: jetstream(nats!), logger, registry });
  };
  const stopRelay = async () => {
    const current = relay;
    relay = undefined;
    await current?.stop();
  };
  const release = async () => {
    await consumer?.stop();
    await stopRelay();
    await database.close();
    await nats?.drain().catch(() => nats?.close());
  };

  try {
    if (config.MIGRATE_ON_START) await migrateCampaignSchema(database, logger);

    nats = await connectNats({ url: config.NATS_URL, name: SERVICE_NAME, logger });
    const jsm = await jetstreamManager(nats);
    const js = jetstream(nats);
    await ensureStream(jsm, eventStreamOptions(config));
    startRelay();
    consumer = await startConsumer({
      js,
      jsm,
      stream: config.EVENTS_STREAM,
      durable: READINESS_CONSUMER,
      filterSubjects: [readinessSubject(prefix)],
      db: database.db,
      schema: database.schema,
      logger,
      registry,
      // Batches of different campaigns proceed side by side; those of one campaign queue on its
      // statistics row. No deadlock: every batch locks its campaigns in campaignId order.
      concurrency: 2,
      // A verdict may trail its issue change by a few ms (the promise is within a second):
      // gathering the events of 25 ms into one transaction costs one recompute per campaign
      // instead of one per event when issues trickle in.
      gatherMs: 25,
      batchHandler: readinessBatchHandler({ prefix, logger, metrics }),
    });

    const nc = nats;
    const { app, markDraining } = createApp(
      {
        service: SERVICE_NAME,
        logger,
        registry,
        readiness: {
          database: database.ping,
          // A round trip to the server: fails while the connection is down or reconnecting.
          nats: async () => {
            if (nc.isClosed()) throw new Error('connection closed');
            await nc.flush();
          },
        },
      },
      (a) => {
        for (const register of routes) register(a, { db: database.db, events: { prefix }, metrics });
      },
    );
    const server = await serve({
      app,
      port: config.CAMPAIGN_PORT,
      host: opts.host,
      logger,
      onDrain: markDraining,
      onShutdown: [() => consumer!.stop(), stopRelay, database.close, () => nc.drain()],
      exitOnShutdown: opts.exitOnShutdown ?? true,
    });
    const host = opts.host ?? '127.0.0.1';
    return {
      port: server.port,
      url: `http://${host}:${server.port}`,
      database,
      registry,
      nats: nc,
      js,
      stopRelay,
      startRelay,
      shutdown: () => server.shutdown(),
    };
  } catch (err) {
    await release().catch(() => undefined);
    throw err;
  }
}
