import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, sql } from '@preflight/db';
import { isDependencyOutage } from '@preflight/http';
import { eventually, TEST_DATABASE_URL } from '@preflight/testing';
import type { RunningGateway } from '../src/app.ts';
import { adminClient, call, cleanUp, expectProblem, isolation, startTestGateway } from './harness.ts';
import { databaseThroughLink, type TcpLink } from './tcp-link.ts';

// Issue 22, finding 5: a database outage is a 503 that says a retry is safe, not a 500.
const iso = isolation();
let link: TcpLink;
let gw: RunningGateway;

beforeAll(async () => {
  const db = await databaseThroughLink(TEST_DATABASE_URL);
  link = db.link;
  // A short grace, so the test sees readiness hold within the blip and fail after it (10 s by default).
  gw = await startTestGateway(iso, { DATABASE_URL: db.url, READINESS_GRACE_MS: '1500' });
});
afterAll(async () => {
  await link?.restore();
  await gw?.shutdown();
  await link?.close();
  await cleanUp(iso);
});

describe('a database outage', () => {
  it('answers 503 dependency-unavailable with Retry-After while Postgres is unreachable, and 200 once it is back', async () => {
    const admin = adminClient(gw.url, iso.adminToken);
    await admin.createOrg('Before the outage');
    // Its audit entry is written after the answer: let it land before the cut (a query in flight
    // when a connection is reset is not what this test is about).
    await eventually(async () => expect((await admin.call('GET', '/admin/v1/audit-log?limit=1')).body).toHaveLength(1));
    await link.cut();
    try {
      const res = await admin.call('GET', '/admin/v1/organizations');
      const body = expectProblem(res, 503, 'Service unavailable.');
      expect(body.type).toBe('https://preflight.dev/problems/dependency-unavailable');
      expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
      expect(res.headers.get('retry-after')).toBe('1');
      // Readiness tolerates a blip shorter than READINESS_GRACE_MS, then fails; liveness never does.
      expect((await call(gw.url, 'GET', '/readyz')).status).toBe(200);
      await eventually(async () => {
        const ready = await call(gw.url, 'GET', '/readyz');
        expect(ready.status).toBe(503);
        expect(ready.headers.get('retry-after')).toBe('1');
      }, { timeoutMs: 8_000 });
      expect((await call(gw.url, 'GET', '/healthz')).status).toBe(200);
    } finally {
      await link.restore();
    }
    await eventually(async () => expect((await admin.call('GET', '/admin/v1/organizations')).status).toBe(200));
  });
});

describe('isDependencyOutage on errors from a real Postgres', () => {
  const database = createDatabase<unknown>({ url: TEST_DATABASE_URL, schema: 'public', poolMax: 2, applicationName: 'outage-test' });
  afterAll(() => database.close());

  it('recognises a session ended by an administrator (57P01)', async () => {
    const client = await database.pool.connect();
    try {
      const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
      const sleeping = client.query('select pg_sleep(30)').then(() => undefined, (err: unknown) => err);
      await eventually(async () => {
        const { rows: active } = await database.pool.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where pid = $1 and query like 'select pg_sleep%'", [rows[0]!.pid]);
        expect(active[0]!.n).toBe(1);
      });
      await database.pool.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
      const err = (await sleeping) as { code?: string };
      expect(err.code).toBe('57P01');
      expect(isDependencyOutage(err)).toBe(true);
    } finally {
      client.release(true);
    }
  });

  it('recognises a pool that cannot hand out a connection in time', { timeout: 15_000 }, async () => {
    const held = await Promise.all([database.pool.connect(), database.pool.connect()]);
    try {
      const err = await database.pool.connect().then(
        (c) => (c.release(), undefined),
        (e: unknown) => e,
      );
      expect((err as Error).message).toMatch(/timeout exceeded when trying to connect/);
      expect(isDependencyOutage(err)).toBe(true);
    } finally {
      for (const c of held) c.release();
    }
  });

  it('does not take a refused statement for an outage', async () => {
    const err = await sql`select * from no_such_table_here`.execute(database.db).then(() => undefined, (e: unknown) => e);
    expect((err as { code?: string }).code).toBe('42P01');
    expect(isDependencyOutage(err)).toBe(false);
  });
});
