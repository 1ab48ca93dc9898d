import { createDatabase, migrateToLatest, type Database } from '@preflight/db';
import { createApp, createRegistry, serve } from '@preflight/http';
import { createLogger, type Logger } from '@preflight/log';
import type { CampaignConfig } from './config.ts';
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

/** Database, migrations (unless a hook Job runs them), routes, then listen. */
export async function startCampaignService(config: CampaignConfig, opts: StartOptions = {}): Promise<RunningCampaignService> {
  const logger = opts.logger ?? createLogger(SERVICE_NAME, { level: config.LOG_LEVEL });
  const database = openCampaignDatabase(config);
  try {
    if (config.MIGRATE_ON_START) await migrateCampaignSchema(database, logger);
    const { app, markDraining } = createApp(
      { service: SERVICE_NAME, logger, registry: createRegistry(SERVICE_NAME), readiness: { database: database.ping } },
      (a) => {
        for (const register of routes) register(a, { db: database.db });
      },
    );
    const server = await serve({
      app,
      port: config.CAMPAIGN_PORT,
      host: opts.host,
      logger,
      onDrain: markDraining,
      onShutdown: [database.close],
      exitOnShutdown: opts.exitOnShutdown ?? true,
    });
    const host = opts.host ?? '127.0.0.1';
    return { port: server.port, url: `http://${host}:${server.port}`, database, shutdown: () => server.shutdown() };
  } catch (err) {
    await database.close();
    throw err;
  }
}
