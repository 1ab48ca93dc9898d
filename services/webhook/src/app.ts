import type { Kysely } from '@preflight/db';
import { createDatabase, migrateToLatest } from '@preflight/db';
import { createApp, createRegistry, serve } from '@preflight/http';
import { createLogger, type Logger } from '@preflight/log';
import { createDeliveryClient } from './clients/delivery-client.ts';
import type { WebhookConfig } from './config.ts';
import { migrations } from './migrations/index.ts';
import { registrations } from './routes/index.ts';
import { startEndpointChangeSignal } from './signals/endpoints-changed.ts';
import type { WebhookDatabase } from './storage/schema.ts';
import { createTargetChecker, type HostResolver } from './targets/target-check.ts';

export interface StartOptions {
  config: WebhookConfig;
  logger?: Logger;
  /** Interface to listen on; tests use loopback. */
  host?: string;
  /** Off in tests, which run several apps in one process. */
  exitOnShutdown?: boolean;
  /** How webhook host names are resolved; the system resolver unless a test supplies one. */
  resolveHost?: HostResolver;
}

export interface RunningWebhookService {
  port: number;
  shutdown(reason?: string): Promise<void>;
}

function openDatabase(config: WebhookConfig) {
  return createDatabase<WebhookDatabase>({
    url: config.DATABASE_URL,
    schema: config.DB_SCHEMA,
    poolMax: config.DB_POOL_MAX,
    applicationName: 'webhook',
  });
}

/** `main.ts migrate`: brings the schema up to date and returns. */
export async function migrateWebhookSchema(config: WebhookConfig, logger: Logger): Promise<void> {
  const database = openDatabase(config);
  try {
    await migrateToLatest(database.db as Kysely<unknown>, database.schema, migrations, logger);
  } finally {
    await database.close();
  }
}

/** Wires database, secret keys, the target check and routes, and serves until shutdown. */
export async function startWebhookService(opts: StartOptions): Promise<RunningWebhookService> {
  const { config } = opts;
  const logger = opts.logger ?? createLogger('webhook', { level: config.LOG_LEVEL });
  const database = openDatabase(config);
  const signal = startEndpointChangeSignal({ url: config.NATS_URL, subjectPrefix: config.EVENTS_SUBJECT_PREFIX, logger });
  try {
    if (config.MIGRATE_ON_START) await migrateToLatest(database.db as Kysely<unknown>, database.schema, migrations, logger);
    const targets = createTargetChecker({
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      ...(opts.resolveHost ? { resolve: opts.resolveHost } : {}),
    });
    const delivery = createDeliveryClient(config.DELIVERY_URL);
    const { app, markDraining } = createApp(
      { service: 'webhook', logger, registry: createRegistry('webhook'), readiness: { postgres: database.ping } },
      (a) => {
        for (const register of registrations) register(a, { db: database.db, keys: config.WEBHOOK_SECRET_KEYS, targets, logger, signal, delivery });
      },
    );
    const server = await serve({
      app,
      port: config.WEBHOOK_PORT,
      ...(opts.host ? { host: opts.host } : {}),
      logger,
      onDrain: markDraining,
      onShutdown: [() => signal.close(), () => database.close()],
      exitOnShutdown: opts.exitOnShutdown ?? true,
    });
    return { port: server.port, shutdown: server.shutdown };
  } catch (err) {
    await signal.close();
    await database.close();
    throw err;
  }
}
