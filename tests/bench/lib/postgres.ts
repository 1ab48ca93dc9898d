import pg from 'pg';
import { TEST_DATABASE_URL } from '@preflight/testing';

/** Runs `fn` on a connection of its own to the benchmark's Postgres, closed afterwards. */
export async function withBenchClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The server's version and `synchronous_commit`, for a report's machine line. */
export function postgresVersion(): Promise<string> {
  return withBenchClient(async (client) => {
    const { rows } = await client.query<{ v: string; sc: string }>("select current_setting('server_version') as v, current_setting('synchronous_commit') as sc");
    return `PostgreSQL ${rows[0]!.v} (synchronous_commit=${rows[0]!.sc})`;
  });
}

/**
 * `VACUUM (ANALYZE)` of every table in these schemas (the system's services), as autovacuum
 * would have done by then (the machine's Postgres may run without it): run before each of two
 * compared runs, so both start from the same state, and the statements the services keep
 * prepared are planned again with the tables' present sizes, not those of the start.
 */
export async function vacuumSchemas(schemas: readonly string[]): Promise<void> {
  await withBenchClient(async (client) => {
    const { rows } = await client.query<{ s: string; t: string }>('select schemaname as s, tablename as t from pg_tables where schemaname = any($1)', [schemas]);
    if (rows.length > 0) await client.query(`vacuum (analyze) ${rows.map((r) => `"${r.s}"."${r.t}"`).join(', ')}`);
  });
}
