import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { TEST_DATABASE_URL } from '@preflight/testing';
import { createDatabase, sql, type Database } from '../src/index.ts';

// Found by the chaos suite (npm run chaos, Postgres fault): an immediate Postgres restart made
// campaign, issue, delivery and integration exit with "uncaught exception: Connection terminated
// unexpectedly", because pg-pool leaves a checked-out client without an 'error' listener.
let database: Database<Record<string, never>>;
const uncaught: unknown[] = [];
const record = (err: unknown) => void uncaught.push(err);

beforeAll(() => {
  database = createDatabase({ url: TEST_DATABASE_URL, schema: 'public', poolMax: 2 });
  process.on('uncaughtExceptionMonitor', record);
});
afterAll(async () => {
  process.off('uncaughtExceptionMonitor', record);
  await database?.close();
});

it('survives the server ending a connection that is checked out, and serves the next query on a new one', async () => {
  const { db } = database;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    const failed = await db
      .transaction()
      .execute(async (trx) => {
        const { pid } = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!;
        // The connection is in use (inside the transaction, between two statements) when the server ends it.
        await admin.query('select pg_terminate_backend($1)', [pid]);
        await new Promise((r) => setTimeout(r, 300));
        await sql`select 1`.execute(trx);
      })
      .then(
        () => undefined,
        (err: Error) => err,
      );
    expect(failed).toBeInstanceOf(Error);
  } finally {
    await admin.end();
  }
  expect(uncaught).toEqual([]);
  expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
});
