import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const TEST_NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** A short id unique to this test process; everything a test creates is named with it. */
export const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;

let counter = 0;

/** A fresh lower-case identifier for a schema, stream or key prefix: `t_<run>_<n>_<label>`. */
export function isolatedName(label: string): string {
  counter += 1;
  return `t_${runId}_${counter}_${label}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
}

export async function dropSchemas(schemas: string[], url = TEST_DATABASE_URL): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // The same lock migrations hold (libs/db DDL_LOCK_KEY): a drop must not land in the middle
    // of another file's migration, whose introspection reads every schema.
    await client.query(`select pg_advisory_lock(hashtext('preflight:schema-ddl'))`);
    for (const schema of schemas) await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}
