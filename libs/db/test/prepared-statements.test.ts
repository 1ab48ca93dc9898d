import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { TEST_DATABASE_URL, dropSchemas, isolatedName } from '@preflight/testing';
import { createDatabase, sql, type Database } from '../src/index.ts';
import { MAX_NAMED_PARAMETERS, StatementNames } from '../src/prepared-statements.ts';

interface Db {
  widgets: { id: number; name: string };
}

const schema = isolatedName('db_prepared');
let database: Database<Db>;

/** The statements this connection has prepared, as Postgres lists them. */
async function prepared(db: Database<Db>['db']): Promise<string[]> {
  const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements where from_sql = false`.execute(db);
  return rows.map((r) => r.statement);
}

const pid = async (db: Database<Db>['db']): Promise<number> => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid;

beforeAll(async () => {
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema "${schema}"; create table "${schema}".widgets (id int primary key, name text not null)`);
  await admin.end();
  // One connection, so every statement of a test runs on the connection it inspects.
  database = createDatabase<Db>({ url: TEST_DATABASE_URL, schema, poolMax: 1 });
});

afterAll(async () => {
  await database?.close();
  await dropSchemas([schema]);
});

describe('named statements', () => {
  it('prepares a statement with bound values once per connection and reuses it', async () => {
    const { db } = database;
    for (let i = 1; i <= 3; i += 1) await db.insertInto('widgets').values({ id: i, name: `w${i}` }).execute();
    const insert = (await prepared(db)).filter((s) => s.startsWith('insert into "widgets"'));
    expect(insert).toHaveLength(1);
    expect(await db.selectFrom('widgets').select('name').where('id', '=', 2).executeTakeFirst()).toEqual({ name: 'w2' });
  });

  it('leaves statements without bound values and batch statements unnamed', async () => {
    const { db } = database;
    const rows = Array.from({ length: MAX_NAMED_PARAMETERS }, (_, i) => ({ id: 1000 + i, name: 'batch' }));
    await db.insertInto('widgets').values(rows).execute(); // 2 values a row: over the limit
    await sql`select count(*) from widgets`.execute(db);
    const statements = await prepared(db);
    expect(statements.some((s) => s.includes('count(*)'))).toBe(false);
    expect(statements.filter((s) => s.startsWith('insert into "widgets"'))).toHaveLength(1); // the single-row one only
    expect(await db.selectFrom('widgets').select(sql<number>`count(*)`.as('n')).where('name', '=', 'batch').executeTakeFirst()).toEqual({ n: MAX_NAMED_PARAMETERS });
  });

  it('answers a select * outside a transaction after a migration changed its table, on a fresh connection', async () => {
    const { db } = database;
    const before = await db.selectFrom('widgets').selectAll().where('id', '=', 1).executeTakeFirst();
    expect(before).toEqual({ id: 1, name: 'w1' });
    const connection = await pid(db);

    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`alter table "${schema}".widgets add column colour text not null default 'blue'`);
    await admin.end();

    // Prepared before the migration, the statement is refused by Postgres; the caller sees the new row shape.
    const after = await db.selectFrom('widgets').selectAll().where('id', '=', 1).executeTakeFirst();
    expect(after).toEqual({ id: 1, name: 'w1', colour: 'blue' });
    expect(await pid(db)).not.toBe(connection);
    expect(await db.selectFrom('widgets').selectAll().where('id', '=', 1).executeTakeFirst()).toEqual({ id: 1, name: 'w1', colour: 'blue' });
  });

  it('fails a transaction that meets a changed table once, and the next one runs on a fresh connection', async () => {
    const { db } = database;
    const read = (trx: typeof db) => trx.selectFrom('widgets').selectAll().where('id', '=', 2).executeTakeFirst();
    await db.transaction().execute(read);
    const connection = await pid(db);

    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`alter table "${schema}".widgets add column size int not null default 3`);
    await admin.end();

    await expect(db.transaction().execute(read)).rejects.toMatchObject({ code: '0A000' });
    expect(await pid(db)).not.toBe(connection);
    expect(await db.transaction().execute(read)).toEqual({ id: 2, name: 'w2', colour: 'blue', size: 3 });
  });
});

describe('StatementNames', () => {
  it('gives one text one name, and none past its bound or without values', () => {
    const names = new StatementNames(2);
    const a = names.nameOf('select $1', 1);
    expect(a).toBeDefined();
    expect(names.nameOf('select $1', 1)).toBe(a);
    const b = names.nameOf('select $1, $2', 2);
    expect(b).toBeDefined();
    expect(b).not.toBe(a);
    expect(names.nameOf('select $1, $2, $3', 3)).toBeUndefined();
    expect(names.nameOf('select 1', 0)).toBeUndefined();
    expect(names.nameOf('select many', MAX_NAMED_PARAMETERS + 1)).toBeUndefined();
    expect(names.size).toBe(2);
  });
});
