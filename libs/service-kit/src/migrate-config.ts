import { loadConfig } from '@preflight/config';
import { databaseConfigShape, logConfigShape, type KitConfig } from './config.ts';

/**
 * What `main.ts migrate` reads, and nothing else: the database URL, the schema, the pool bound
 * and the log level. The migration hook Job gets only these (no API, NATS, Redis or service
 * keys), so the command must start without the rest of the service's configuration.
 */
export function migrateConfigShape(schema: string) {
  const { DATABASE_URL, DB_SCHEMA, DB_POOL_MAX } = databaseConfigShape(schema);
  return { DATABASE_URL, DB_SCHEMA, DB_POOL_MAX, ...logConfigShape };
}

/** The configuration `migrateService` needs, read from `source` (a bad value stops the process). */
export function loadMigrateConfig(schema: string, source: Record<string, string | undefined> = process.env, exitOnError = true): KitConfig {
  return { ...loadConfig(migrateConfigShape(schema), { source, exitOnError }), MIGRATE_ON_START: false };
}
