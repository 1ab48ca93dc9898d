import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import type { Logger } from '@preflight/log';

/** Migrations in order of their names (`0001_init`, `0002_…`), listed statically so bundles keep them. */
export type MigrationSet = Record<string, Migration>;

/**
 * One advisory lock for all schema DDL in the database. kysely's migrator introspects the
 * tables of every schema before it runs; DDL in another schema at that instant (another
 * service migrating, a test dropping its schema) makes that introspection fail. Holding this
 * lock around migrations — and around test clean-up — serialises them. Migrations are rare
 * and short, so the wait costs nothing.
 */
export const DDL_LOCK_KEY = 'preflight:schema-ddl';

/**
 * Brings the service's schema to the latest version. Safe to run from several replicas or a
 * hook Job at once: runs hold the DDL lock, and kysely also serialises with a lock row in the
 * schema's own migration table.
 */
export async function migrateToLatest(db: Kysely<any>, schema: string, migrations: MigrationSet, logger?: Logger): Promise<void> {
  await db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(hashtext(${DDL_LOCK_KEY}))`.execute(conn);
    try {
      await sql`create schema if not exists ${sql.id(schema)}`.execute(conn);
      const migrator = new Migrator({
        db: conn,
        provider: { getMigrations: async () => migrations },
        migrationTableSchema: schema,
      });
      const { error, results } = await migrator.migrateToLatest();
      for (const r of results ?? []) {
        if (r.status === 'Success') logger?.info({ migration: r.migrationName, schema }, 'migration applied');
        if (r.status === 'Error') logger?.error({ migration: r.migrationName, schema }, 'migration failed');
      }
      if (error) throw error instanceof Error ? error : new Error(String(error));
    } finally {
      await sql`select pg_advisory_unlock(hashtext(${DDL_LOCK_KEY}))`.execute(conn);
    }
  });
}
