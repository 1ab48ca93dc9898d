import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectNats, ensureStream, eventStreamOptions, startConsumer, startOutboxRelay, type OutboxRelay, type RunningConsumer } from '@preflight/bus';
import type { Kysely } from '@preflight/db';
import { createDatabase, migrateToLatest } from '@preflight/db';
import { ownerSubjects } from '@preflight/events';
import { createApp, createRegistry, serve } from '@preflight/http';
import { createLogger, type Logger } from '@preflight/log';
import type { IssueConfig } from './config.ts';
import { createCampaignClient } from './directory/campaign-client.ts';
import { createCampaignDirectory } from './directory/campaign-directory.ts';
import { DIRECTORY_CONSUMER, campaignEventHandler } from './directory/campaign-events.ts';
import { migrations } from './migrations/index.ts';
import { registrations } from './routes/index.ts';
import { issueFiling } from './storage/issue-filing.ts';
import type { IssueDatabase } from './storage/schema.ts';

export interface StartOptions {
  config: IssueConfig;
  logger?: Logger;
  /** Interface to listen on; tests use loopback. */
  host?: string;
  /** Off in tests, which run several apps in one process. */
  exitOnShutdown?: boolean;
}

/** The outbox relay of a running service, for tests of the crash window between commit and publish. */
export interface RelayHandle {
  /** Stops publishing (as a crashed relay would); committed events wait in the outbox. */
  stop(): Promise<void>;
  /** Starts a fresh relay if none is running: it publishes whatever the outbox holds. */
  start(): void;
}

export interface RunningIssueService {
  port: number;
  relay: RelayHandle;
  shutdown(reason?: string): Promise<void>;
}

function openDatabase(config: IssueConfig) {
  return createDatabase<IssueDatabase>({
    url: config.DATABASE_URL,
    schema: config.DB_SCHEMA,
    poolMax: config.DB_POOL_MAX,
    applicationName: 'issue',
  });
}

/** `main.ts migrate`: brings the schema up to date and returns. */
export async function migrateIssueSchema(config: IssueConfig, logger: Logger): Promise<void> {
  const database = openDatabase(config);
  try {
    await migrateToLatest(database.db as Kysely<unknown>, database.schema, migrations, logger);
  } finally {
    await database.close();
  }
}

/**
 * Wires database, NATS (stream, outbox relay, directory consumer), campaign directory and
 * routes, and serves until shutdown. Shutdown stops the consumer and the relay before the
 * NATS connection and the pool close.
 */
export async function startIssueService(opts: StartOptions): Promise<RunningIssueService> {
  const { config } = opts;
  const logger = opts.logger ?? createLogger('issue', { level: config.LOG_LEVEL });
  const database = openDatabase(config);
  const campaigns = createCampaignClient(config.CAMPAIGN_URL);
  const registry = createRegistry('issue');
  const prefix = config.EVENTS_SUBJECT_PREFIX;
  let nc: NatsConnection | undefined;
  let relay: OutboxRelay | undefined;
  let consumer: RunningConsumer | undefined;

  // In order: stop taking events in and sending them out, then close what they used.
  const releases: Array<() => Promise<unknown>> = [
    async () => consumer?.stop(),
    async () => {
      const current = relay;
      relay = undefined;
      await current?.stop();
    },
    () => campaigns.close(),
    async () => nc?.close(),
    () => database.close(),
  ];

  try {
    if (config.MIGRATE_ON_START) await migrateToLatest(database.db as Kysely<unknown>, database.schema, migrations, logger);
    const conn = await connectNats({ url: config.NATS_URL, name: 'issue', logger });
    nc = conn;
    const jsm = await jetstreamManager(conn);
    const js = jetstream(conn);
    await ensureStream(jsm, eventStreamOptions(config));

    const startRelay = () => startOutboxRelay({ db: database.db, pool: database.pool, schema: database.schema, js, logger, registry });
    relay = startRelay();
    consumer = await startConsumer({
      js,
      jsm,
      stream: config.EVENTS_STREAM,
      durable: DIRECTORY_CONSUMER,
      // One subject: NATS before 2.10 allows one filter per consumer.
      filterSubjects: [ownerSubjects('campaign', prefix)],
      db: database.db,
      schema: database.schema,
      logger,
      registry,
      concurrency: 4,
      handler: campaignEventHandler(prefix, logger),
    });

    const directory = createCampaignDirectory(database.db, campaigns, logger);
    const events = { subjectPrefix: prefix };
    const filing = issueFiling(database.db, events);
    const { app, markDraining } = createApp(
      {
        service: 'issue',
        logger,
        registry,
        readiness: {
          postgres: database.ping,
          nats: async () => {
            if (conn.isClosed()) throw new Error('connection closed');
            await conn.flush();
          },
        },
      },
      (a) => {
        for (const register of registrations) register(a, { db: database.db, directory, events, filing });
      },
    );
    const server = await serve({
      app,
      port: config.ISSUE_PORT,
      ...(opts.host ? { host: opts.host } : {}),
      logger,
      onDrain: markDraining,
      onShutdown: releases,
      exitOnShutdown: opts.exitOnShutdown ?? true,
    });
    return {
      port: server.port,
      relay: {
        async stop() {
          const current = relay;
          relay = undefined;
          await current?.stop();
        },
        start() {
          relay ??= startRelay();
        },
      },
      shutdown: server.shutdown,
    };
  } catch (err) {
    for (const release of releases) {
      await release().catch((cleanupErr: unknown) => logger.warn({ err: cleanupErr }, 'cleanup after a failed start failed'));
    }
    throw err;
  }
}
