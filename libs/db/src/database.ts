import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { namingPool } from './prepared-statements.ts';

// COUNT(*) and BIGINT arrive as strings by default; every count we keep fits a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

export interface DatabaseOptions {
  url: string;
  /** The one schema this service owns; every unqualified name resolves inside it. */
  schema: string;
  poolMax?: number;
  applicationName?: string;
}

export interface Database<DB> {
  db: Kysely<DB>;
  pool: pg.Pool;
  schema: string;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A kysely instance over a pg pool whose connections live in the service's own schema
 * (`search_path`), so a service cannot touch another's tables by accident and tests can run
 * the same code against a throw-away schema.
 */
export function createDatabase<DB>(opts: DatabaseOptions): Database<DB> {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolMax ?? 10,
    application_name: opts.applicationName,
    options: `-c search_path=${opts.schema}`,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client dropped by the server must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor one in use: pg-pool takes its own 'error' listener off a client while it is checked out,
  // and a Postgres restart then emits 'error' on every client in use with none attached (an
  // uncaught exception: the process exits). The failure still reaches the caller, since the
  // client's pending and later queries reject, and the pool drops the client on release.
  pool.on('connect', (client) => client.on('error', () => undefined));
  // Statements go out named, so each connection plans them once (prepared-statements.ts).
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: namingPool(pool) }) });
  let closed = false;
  return {
    db,
    pool,
    schema: opts.schema,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}
