import pg from 'pg';
import { TEST_DATABASE_URL } from './isolation.ts';

/** Bookkeeping no request changes (consumer inboxes, the migrator's tables). */
const BOOKKEEPING = new Set(['inbox', 'kysely_migration', 'kysely_migration_lock']);

/**
 * Every row of every table of `schema`, as text, sorted: what a refused request (another
 * organisation's resource, 404) must leave exactly as it was. The outbox is compared by row id
 * only, since the relay stamps rows as it publishes them; a new row there is a new event.
 * `skip` leaves out tables that background work changes on its own (a scheduler's leases).
 */
export async function schemaRows(schema: string, opts: { skip?: readonly string[]; url?: string } = {}): Promise<Record<string, string[]>> {
  return withClient(opts.url, async (client) => {
    const { rows: tables } = await client.query<{ name: string }>(
      `select table_name as name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE' order by table_name`,
      [schema],
    );
    const out: Record<string, string[]> = {};
    for (const { name } of tables) {
      if (BOOKKEEPING.has(name) || opts.skip?.includes(name)) continue;
      const table = `${client.escapeIdentifier(schema)}.${client.escapeIdentifier(name)}`;
      const { rows } = await client.query<{ r: string }>(name === 'outbox' ? `select id::text as r from ${table} order by 1` : `select t::text as r from ${table} t order by 1`);
      out[name] = rows.map((row) => row.r);
    }
    return out;
  });
}

/**
 * The types of the events the service's outbox holds for `orgId`, in the order they were
 * enqueued: two callers making the same changes (a console member, the operator) enqueue the
 * same list.
 */
export async function outboxTypes(schema: string, orgId: string, url?: string): Promise<string[]> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ type: string }>(`select type from ${client.escapeIdentifier(schema)}.outbox where org_id = $1 order by seq`, [orgId]);
    return rows.map((row) => row.type);
  });
}

async function withClient<T>(url: string | undefined, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url ?? TEST_DATABASE_URL });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
