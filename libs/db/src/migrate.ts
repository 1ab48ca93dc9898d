import { Migrator, sql, type Kysely, type Migration } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any service's typed database

import type { Logger } from '@preflight/log';

/** Migrations in order of their names (`0001_init`, `0002_…`), listed statically so bundles keep them. */
export type MigrationSet = Record<string, Migration>;

/**
 * Brings the service's schema to the latest version. Safe to run from several replicas or a
 * hook Job at once: kysely serialises runs with a lock row in the schema's own migration table.
 */
export async function migrateToLatest(db: Kysely<any>, schema: string, migrations: MigrationSet, logger?: Logger): Promise<void> {
  await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableSchema: schema,
  });
  const { error, results } = await migrator.migrateToLatest();
  for (const r of results ?? []) {
    if (r.status === 'Success') logger?.info({ migration: r.migrationName, schema }, 'migration applied');
    if (r.status === 'Error') logger?.error({ migration: r.migrationName, schema }, 'migration failed');
  }
  if (error) throw error instanceof Error ? error : new Error(String(error));
}
