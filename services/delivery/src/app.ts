import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectNats, ensureStream, eventStreamOptions, startConsumer, type RunningConsumer } from '@preflight/bus';
import type { Kysely } from '@preflight/db';
import { createDatabase, listenFor, migrateToLatest } from '@preflight/db';
import { allSubjects, decodeEndpointsChanged, endpointsChangedSubject } from '@preflight/events';
import { createApp, createRegistry, serve } from '@preflight/http';
import { createLogger, type Logger } from '@preflight/log';
import type { Resolver } from './attempt/target.ts';
import { EndpointDirectory } from './clients/endpoint-directory.ts';
import { createWebhookClient } from './clients/webhook-client.ts';
import type { DeliveryConfig } from './config.ts';
import { FANOUT_CONSUMER, deliveryChannel, fanout } from './fanout/fanout.ts';
import { maxAttempts } from './domain/schedule.ts';
import { migrations } from './migrations/index.ts';
import { registrations } from './routes/index.ts';
import type { DeliveryDatabase } from './storage/schema.ts';
import { Breakers } from './worker/breakers.ts';
import { deliveryMetrics, stalledGauge, unstoredGauge } from './worker/metrics.ts';
import { startLogRetention, type LogRetention } from './worker/log-retention.ts';
import { startOutcomeReporter, type OutcomeReporter } from './worker/outcome-reporter.ts';
import { schedulerLeaseMs, startScheduler, type Scheduler } from './worker/scheduler.ts';

export interface StartOptions {
  config: DeliveryConfig;
  logger?: Logger;
  /** Interface to listen on; tests use loopback. */
  host?: string;
  /** Off in tests, which run several apps in one process. */
  exitOnShutdown?: boolean;
  /** How target host names are resolved at each attempt; the system resolver unless a test supplies one. */
  resolveHost?: Resolver;
}

export interface RunningDeliveryService {
  port: number;
  shutdown(reason?: string): Promise<void>;
}

function openDatabase(config: DeliveryConfig) {
  return createDatabase<DeliveryDatabase>({
    url: config.DATABASE_URL,
    schema: config.DB_SCHEMA,
    poolMax: config.DB_POOL_MAX,
    applicationName: 'delivery',
  });
}

/** `main.ts migrate`: brings the schema up to date and returns. */
export async function migrateDeliverySchema(config: DeliveryConfig, logger: Logger): Promise<void> {
  const database = openDatabase(config);
  try {
    await migrateToLatest(database.db as Kysely<unknown>, database.schema, migrations, logger);
  } finally {
    await database.close();
  }
}

/**
 * Wires database, NATS (stream, the fan-out consumer), the scheduler with its breakers and
 * LISTEN connection, the outcome reporter, the log retention and the admin route, and serves until shutdown.
 * Shutdown stops taking events in, then lets attempts in flight finish and be recorded,
 * before the connections close.
 */
export async function startDeliveryService(opts: StartOptions): Promise<RunningDeliveryService> {
  const { config } = opts;
  const logger = opts.logger ?? createLogger('delivery', { level: config.LOG_LEVEL });
  const database = openDatabase(config);
  const webhooks = createWebhookClient(config.WEBHOOK_URL);
  const endpoints = new EndpointDirectory(webhooks, config.DELIVERY_ENDPOINT_CACHE_TTL_MS);
  const registry = createRegistry('delivery');
  const metrics = deliveryMetrics(registry, database.db);
  const breakers = new Breakers(
    {
      resetTimeoutMs: config.DELIVERY_BREAKER_RESET_MS,
      volumeThreshold: config.DELIVERY_BREAKER_VOLUME_THRESHOLD,
      errorThresholdPercentage: config.DELIVERY_BREAKER_ERROR_PERCENT,
      rollingWindowMs: config.DELIVERY_BREAKER_WINDOW_MS,
    },
    logger,
    registry,
  );
  let nc: NatsConnection | undefined;
  let consumer: RunningConsumer | undefined;
  let scheduler: Scheduler | undefined;
  let reporter: OutcomeReporter | undefined;
  let retention: LogRetention | undefined;
  let listener: { close(): Promise<void> } | undefined;

  const releases: Array<() => Promise<unknown>> = [
    async () => consumer?.stop(),
    async () => listener?.close(),
    async () => scheduler?.stop(),
    async () => reporter?.stop(),
    async () => retention?.stop(),
    async () => breakers.shutdown(),
    () => webhooks.close(),
    async () => nc?.close(),
    () => database.close(),
  ];

  try {
    if (config.MIGRATE_ON_START) await migrateToLatest(database.db as Kysely<unknown>, database.schema, migrations, logger);
    const conn = await connectNats({ url: config.NATS_URL, name: 'delivery', logger });
    nc = conn;
    const jsm = await jetstreamManager(conn);
    const js = jetstream(conn);
    await ensureStream(jsm, eventStreamOptions(config));
    // The webhook service signals endpoint changes so the cache does not wait out its TTL.
    conn.subscribe(endpointsChangedSubject(config.EVENTS_SUBJECT_PREFIX), {
      callback: (err, msg) => {
        const change = err ? undefined : decodeEndpointsChanged(msg.string());
        if (!change) return;
        endpoints.invalidate(change.orgId);
        if (change.reset && change.endpointId) breakers.reset(change.endpointId);
      },
    });

    const outcomes = startOutcomeReporter({
      db: database.db,
      webhooks,
      metrics,
      logger,
      pollIntervalMs: config.DELIVERY_POLL_INTERVAL_MS,
      onDisabled: (orgId) => endpoints.invalidate(orgId),
    });
    reporter = outcomes;
    retention = startLogRetention({ db: database.db, registry, logger, retentionDays: config.DELIVERY_LOG_RETENTION_DAYS, everyMs: config.DELIVERY_LOG_RETENTION_SWEEP_MS });
    const work = startScheduler({
      db: database.db,
      endpoints,
      webhooks,
      breakers,
      metrics,
      logger,
      attemptTimeoutMs: config.DELIVERY_ATTEMPT_TIMEOUT_MS,
      retrySchedule: config.DELIVERY_RETRY_SCHEDULE_MS,
      maxPerEndpoint: config.DELIVERY_MAX_CONCURRENCY_PER_ENDPOINT,
      workers: config.DELIVERY_WORKERS,
      pollIntervalMs: config.DELIVERY_POLL_INTERVAL_MS,
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      ...(opts.resolveHost ? { resolve: opts.resolveHost } : {}),
      reportOutcomes: (finals) => outcomes.report(finals),
      onUnreported: () => outcomes.wake(),
    });
    scheduler = work;
    listener = listenFor({ pool: database.pool, channel: deliveryChannel(database.schema), onNotify: () => work.wake(), logger: logger.child({ component: 'scheduler' }), what: 'delivery' });

    const fan = fanout({
      subjectPrefix: config.EVENTS_SUBJECT_PREFIX,
      schema: database.schema,
      endpoints,
      handoff: work,
      leaseMs: schedulerLeaseMs(config.DELIVERY_ATTEMPT_TIMEOUT_MS),
      logger,
    });
    unstoredGauge(registry, fan.unstored);
    stalledGauge(registry, () => work.stalled());
    consumer = await startConsumer({
      js,
      jsm,
      stream: config.EVENTS_STREAM,
      durable: FANOUT_CONSUMER,
      // Every domain event, in one subject: NATS before 2.10 allows one filter per consumer.
      filterSubjects: [allSubjects(config.EVENTS_SUBJECT_PREFIX)],
      db: database.db,
      schema: database.schema,
      logger,
      registry,
      concurrency: 4,
      // Transactions of many events (one inbox insert, one statement for their attempts and
      // deliveries, one commit, one outcome report for all of them) under a steady flow;
      // attempts do not wait for them (onReceived starts them).
      gatherMs: config.DELIVERY_FANOUT_GATHER_MS,
      wants: fan.wants,
      batchHandler: fan.handler,
      onReceived: fan.onReceived,
      onSettled: fan.onSettled,
    });

    const { app, markDraining } = createApp(
      {
        service: 'delivery',
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
        const ctx = { db: database.db, logger, webhooks, channel: deliveryChannel(database.schema), lastAttempt: maxAttempts(config.DELIVERY_RETRY_SCHEDULE_MS) };
        for (const register of registrations) register(a, ctx);
      },
    );
    const server = await serve({
      app,
      port: config.DELIVERY_PORT,
      ...(opts.host ? { host: opts.host } : {}),
      logger,
      onDrain: markDraining,
      onShutdown: releases,
      exitOnShutdown: opts.exitOnShutdown ?? true,
    });
    return { port: server.port, shutdown: server.shutdown };
  } catch (err) {
    for (const release of releases) {
      await release().catch((cleanupErr: unknown) => logger.warn({ err: cleanupErr }, 'cleanup after a failed start failed'));
    }
    throw err;
  }
}
