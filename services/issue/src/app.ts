import type { Kysely } from '@preflight/db';
import { createDatabase, migrateToLatest } from '@preflight/db';
import { createApp, createRegistry, serve } from '@preflight/http';
import { createLogger, type Logger } from '@preflight/log';
import type { IssueConfig } from './config.ts';
import { createCampaignClient } from './directory/campaign-client.ts';
import { createCampaignDirectory } from './directory/campaign-directory.ts';
import { migrations } from './migrations/index.ts';
import { registrations } from './routes/index.ts';
import type { IssueDatabase } from './storage/schema.ts';

export interface StartOptions {
  config: IssueConfig;
  logger?: Logger;
  /** Interface to listen on; tests use loopback. */
  host?: string;
  /** Off in tests, which run several apps in one process. */
  exitOnShutdown?: boolean;
}

export interface RunningIssueService {
  port: number;
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

/** Wires database, campaign directory and routes, and serves until shutdown. */
export async function startIssueService(opts: StartOptions): Promise<RunningIssueService> {
  const { config } = opts;
  const logger = opts.logger ?? createLogger('issue', { level: config.LOG_LEVEL });
  const database = openDatabase(config);
  const campaigns = createCampaignClient(config.CAMPAIGN_URL);
  try {
    if (config.MIGRATE_ON_START) await migrateToLatest(database.db as Kysely<unknown>, database.schema, migrations, logger);
    const directory = createCampaignDirectory(database.db, campaigns, logger);
    const { app, markDraining } = createApp(
      { service: 'issue', logger, registry: createRegistry('issue'), readiness: { postgres: database.ping } },
      (a) => {
        for (const register of registrations) register(a, { db: database.db, directory });
      },
    );
    const server = await serve({
      app,
      port: config.ISSUE_PORT,
      ...(opts.host ? { host: opts.host } : {}),
      logger,
      onDrain: markDraining,
      onShutdown: [() => campaigns.close(), () => database.close()],
      exitOnShutdown: opts.exitOnShutdown ?? true,
    });
    return { port: server.port, shutdown: server.shutdown };
  } catch (err) {
    await campaigns.close();
    await database.close();
    throw err;
  }
}
