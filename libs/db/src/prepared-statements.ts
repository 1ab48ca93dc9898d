import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/**
 * Statements with more bound values than this stay unnamed: they are the batch statements
 * (multi-row inserts of up to hundreds of rows), whose text varies with the row count and
 * whose parse is already shared by every row. Named, each row count would be one more
 * statement kept in every connection of the pool.
 */
export const MAX_NAMED_PARAMETERS = 64;

/**
 * Distinct statement texts named per process. A service has a few dozen; the bound only keeps
 * a text built from values (which should not happen) from growing every connection's
 * statement cache without end. Past it, new texts run unnamed, as before.
 */
export const MAX_NAMED_STATEMENTS = 512;

/** Postgres's answer when a prepared statement's result columns changed under it (a migration). */
const CACHED_PLAN_CHANGED = '0A000';

/**
 * Gives each statement text one name for the whole process, so every connection parses and
 * plans it once and then only binds and executes it; unnamed, Postgres parsed, analysed and
 * planned every statement on every execution (docs/benchmarks-history.md, "Events").
 */
export class StatementNames {
  private readonly names = new Map<string, string>();

  constructor(private readonly max = MAX_NAMED_STATEMENTS) {}

  /** The name for this text, or undefined when it is to run unnamed. */
  nameOf(text: string, parameterCount: number): string | undefined {
    if (parameterCount === 0 || parameterCount > MAX_NAMED_PARAMETERS) return undefined;
    let name = this.names.get(text);
    if (name === undefined && this.names.size < this.max) {
      name = `pf_${this.names.size.toString(36)}`;
      this.names.set(text, name);
    }
    return name;
  }

  get size(): number {
    return this.names.size;
  }
}

const isCachedPlanChange = (err: unknown): boolean =>
  (err as { code?: string }).code === CACHED_PLAN_CHANGED && /cached plan must not change result type/.test((err as Error).message);

/**
 * A pool client as kysely sees it: statements with bound values go out as named (prepared)
 * statements. When a migration changed a table under a prepared `select *` or `returning *`,
 * Postgres refuses that statement on every connection that prepared it before ("cached plan
 * must not change result type"). Such a connection is closed when it goes back to the pool,
 * so a fresh one prepares the statement anew; a statement outside a transaction is run again
 * at once, unnamed, so the caller does not see the error (inside a transaction the error
 * stands: the transaction is already aborted).
 */
class NamingClient {
  private inTransaction = false;
  private stale = false;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly names: StatementNames,
  ) {}

  query(textOrCursor: unknown, parameters?: readonly unknown[]): unknown {
    if (typeof textOrCursor !== 'string') return this.client.query(textOrCursor as pg.Submittable);
    return this.run(textOrCursor, parameters ?? []);
  }

  private async run(text: string, values: readonly unknown[]): Promise<pg.QueryResult> {
    if (values.length === 0) this.trackTransaction(text);
    const name = this.stale ? undefined : this.names.nameOf(text, values.length);
    if (name === undefined) return this.client.query(text, values as unknown[]);
    try {
      return await this.client.query({ name, text, values: values as unknown[] });
    } catch (err) {
      if (!isCachedPlanChange(err)) throw err;
      this.stale = true;
      if (this.inTransaction) throw err;
      return this.client.query(text, values as unknown[]);
    }
  }

  /** kysely sends exactly these for a transaction (postgres-driver). */
  private trackTransaction(text: string): void {
    if (text === 'begin' || text.startsWith('start transaction')) this.inTransaction = true;
    else if (text === 'commit' || text === 'rollback') this.inTransaction = false;
  }

  release(): void {
    // A connection with a stale statement is closed: its replacement prepares anew.
    if (this.stale) this.client.release(true);
    else this.client.release();
  }
}

/**
 * The pool kysely is given: the service's pg pool, whose clients name their statements (see
 * `StatementNames`). Each pg client keeps one wrapper, so kysely (which keys its connections
 * by client) sees the same connection object at every checkout.
 */
export function namingPool(pool: pg.Pool, names = new StatementNames()): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, NamingClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        wrapper = new NamingClient(client, names);
        wrappers.set(client, wrapper);
      }
      return wrapper as unknown as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}
