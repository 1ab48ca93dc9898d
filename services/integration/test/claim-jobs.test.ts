import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, migrateToLatest, sql, type Kysely } from '@preflight/db';
import { createLogger } from '@preflight/log';
import { TEST_DATABASE_URL, dropSchemas, isolatedName } from '@preflight/testing';
import { migrations } from '../src/migrations/index.ts';
import { insertConnection } from '../src/storage/connections.ts';
import { claimJobs, claimStatement, enqueueJobs, requeueExpiredLeases, settleJobsStatement } from '../src/storage/jobs.ts';
import type { IntegrationDatabase } from '../src/storage/schema.ts';

/**
 * The claim against a migrated schema of its own: which due jobs a replica takes when one
 * connection has a backlog it cannot run (a hanging provider holds its slots) or may run only
 * one of (half-open), and its neighbours have a few jobs queued after it.
 */
const schema = isolatedName('integration_claim');
const database = createDatabase<IntegrationDatabase>({ url: TEST_DATABASE_URL, schema, poolMax: 2, applicationName: 'integration-claim-test' });
const db: Kysely<IntegrationDatabase> = database.db;
const sealed = { keyId: 'k1', iv: Buffer.alloc(12), ciphertext: Buffer.alloc(16), tag: Buffer.alloc(16) };

beforeAll(async () => {
  await migrateToLatest(db as Kysely<unknown>, schema, migrations, createLogger('integration-claim-test', { level: 'silent' }));
});
afterAll(async () => {
  await database.close();
  await dropSchemas([schema]);
});
beforeEach(async () => {
  await db.deleteFrom('jobs').execute();
});

async function connection(overrides: { paused?: boolean } = {}): Promise<string> {
  const id = randomUUID();
  await insertConnection(db, { id, orgId: randomUUID(), kind: 'slack', name: 'c', config: {}, credentials: sealed, inbound: null, campaignIds: null, events: ['IssueCreated'], minSeverity: null });
  if (overrides.paused) await db.updateTable('connections').set({ paused: true }).where('id', '=', id).execute();
  return id;
}

/** `count` notify jobs on the connection, due `agoMs` ago (older first). */
async function queue(connectionId: string, count: number, agoMs: number): Promise<void> {
  const jobs = Array.from({ length: count }, () => ({ connectionId, issueId: null, action: 'announce' as const, dedupeKey: randomUUID(), payload: {} }));
  await enqueueJobs(db, jobs);
  await sql`update jobs set due_at = now() - ${agoMs}::int * interval '1 millisecond' where connection_id = ${connectionId}::uuid and state = 'pending'`.execute(db);
}

const claim = (slots: Map<string, number>, limit = 10) => claimJobs(db, { limit, leaseMs: 60_000, perConnection: 4, slots });
const byConnection = (jobs: Array<{ connectionId: string }>) =>
  jobs.reduce((m, j) => m.set(j.connectionId, (m.get(j.connectionId) ?? 0) + 1), new Map<string, number>());

describe('claimJobs', () => {
  it('takes the neighbours\' jobs behind a backlog of older ones whose connection has no slot', async () => {
    const hanging = await connection();
    const [a, b] = [await connection(), await connection()];
    await queue(hanging, 200, 60_000);
    await queue(a, 3, 1_000);
    await queue(b, 2, 1_000);

    const { jobs, contended } = await claim(new Map([[hanging, 0]]));

    expect(byConnection(jobs)).toEqual(new Map([[a, 3], [b, 2]]));
    expect(contended).toBe(false);
    expect(jobs.every((j) => j.state === 'running' && j.attempts === 1)).toBe(true);
  });

  it('gives a half-open connection its one job and the neighbours theirs in the same claim', async () => {
    const halfOpen = await connection();
    const neighbour = await connection();
    await queue(halfOpen, 200, 60_000);
    await queue(neighbour, 3, 1_000);

    const { jobs } = await claim(new Map([[halfOpen, 1]]));

    expect(byConnection(jobs)).toEqual(new Map([[halfOpen, 1], [neighbour, 3]]));
  });

  it('gives each connection at most its own cap, the oldest first, within the replica\'s limit', async () => {
    const [a, b, c] = [await connection(), await connection(), await connection()];
    await queue(a, 10, 30_000);
    await queue(b, 10, 20_000);
    await queue(c, 10, 10_000);

    const { jobs } = await claim(new Map(), 10);

    expect(byConnection(jobs)).toEqual(new Map([[a, 4], [b, 4], [c, 2]]));
  });

  it('leaves paused connections\' jobs and jobs not due yet', async () => {
    const paused = await connection({ paused: true });
    const later = await connection();
    await queue(paused, 2, 1_000);
    await queue(later, 2, -60_000);

    expect((await claim(new Map())).jobs).toEqual([]);
  });

  it('gives a job whose lease ran out back to the queue, and the next claim takes it', async () => {
    const a = await connection();
    await queue(a, 2, 1_000);
    const first = await claim(new Map());
    expect(first.jobs).toHaveLength(2);
    // The replica that claimed them died: one lease runs out, the other still holds.
    await sql`update jobs set lease_until = now() - interval '1 second' where id = ${first.jobs[0]!.id}::uuid`.execute(db);
    expect((await claim(new Map())).jobs).toEqual([]);

    expect(await requeueExpiredLeases(db)).toBe(1);
    const again = await claim(new Map());
    expect(again.jobs.map((j) => [j.id, j.attempts])).toEqual([[first.jobs[0]!.id, 2]]);
  });

  it('claims and settles by key with plans made while nothing was queued, as a backlog grows', async () => {
    const hanging = await connection();
    const neighbour = await connection();
    // A service that has run a while: thousands of finished jobs, none queued when analysed.
    await queue(neighbour, 5_000, 60_000);
    await sql`update jobs set state = 'done', finished_at = now()`.execute(db);
    await sql`vacuum (analyze) jobs`.execute(db);
    const grow = async () => {
      await queue(hanging, 2_000, 60_000);
      await sql`update jobs set state = 'running', lease_until = now() + interval '1 minute' where id in (select id from jobs where connection_id = ${hanging}::uuid and state = 'pending' limit 500)`.execute(db);
      await queue(neighbour, 3, 1_000);
    };
    const claimRead = await readWithPlanMadeBefore(claimStatement({ limit: 10, leaseMs: 60_000, perConnection: 4, slots: new Map([[hanging, 0]]) }), grow);
    expect(claimRead).toBeLessThan(100);

    const running = (await sql<{ id: string }>`select id from jobs where state = 'running' limit 3`.execute(db)).rows.map((r) => r.id);
    const settleRead = await readWithPlanMadeBefore(settleJobsStatement(running.map((jobId) => ({ jobId, state: 'done' as const, error: null }))), async () => undefined);
    expect(settleRead).toBeLessThan(20);
  });

  it('reads a few index entries of a connection whose backlog of thousands cannot run, not the backlog', async () => {
    const hanging = await connection();
    const neighbours = [await connection(), await connection()];
    await queue(hanging, 5_000, 60_000);
    for (const n of neighbours) await queue(n, 3, 1_000);
    await sql`vacuum (analyze) jobs`.execute(db);

    const q = claimStatement({ limit: 10, leaseMs: 60_000, perConnection: 4, slots: new Map([[hanging, 0]]) }).compile(db);
    const plan = await db.connection().execute(async (conn) => {
      await sql`begin`.execute(conn);
      try {
        const { rows } = await conn.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>({ ...q, sql: `explain (analyze, format json) ${q.sql}` });
        return rows[0]!['QUERY PLAN'][0]!.Plan;
      } finally {
        await sql`rollback`.execute(conn);
      }
    });
    const jobReads = nodesOf(plan).filter((n) => n['Relation Name'] === 'jobs' && n['Node Type'] !== 'ModifyTable');
    expect(jobReads.some((n) => n['Node Type'].startsWith('Seq Scan'))).toBe(false);
    // The skip scan meets each connection once, each neighbour gives its three jobs, the lock and
    // the update touch the six claimed: tens of rows, where a walk in due order reads 5,000 (once
    // per neighbour, when the planner read each neighbour's jobs through a due-order index).
    const rowsRead = jobReads.reduce((sum, n) => sum + (n['Actual Rows'] + (n['Rows Removed by Filter'] ?? 0) + (n['Rows Removed by Index Recheck'] ?? 0)) * n['Actual Loops'], 0);
    expect(rowsRead).toBeLessThan(100);
  });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}
const nodesOf = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];

/** A literal of a bound value, for EXECUTE (the statement's casts give the types). */
const literal = (v: unknown): string =>
  Array.isArray(v) ? literal(`{${v.map((e) => JSON.stringify(String(e))).join(',')}}`) : typeof v === 'number' ? String(v) : v === null ? 'null' : `'${String(v).replaceAll("'", "''")}'`;

/**
 * Rows of `jobs` a statement reads when Postgres planned it (a generic plan, as it keeps for a
 * prepared statement) before `change` ran and nothing analysed the table since; rolled back.
 */
async function readWithPlanMadeBefore(statement: { compile(db: Kysely<IntegrationDatabase>): { sql: string; parameters: readonly unknown[] } }, change: () => Promise<void>): Promise<number> {
  const q = statement.compile(db);
  return db.connection().execute(async (conn) => {
    await sql`set plan_cache_mode = force_generic_plan`.execute(conn);
    await sql.raw(`prepare planned_before as ${q.sql}`).execute(conn);
    const execute = (prefix: string) => sql.raw<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`${prefix}execute planned_before(${q.parameters.map(literal).join(', ')})`).execute(conn);
    try {
      await sql`begin`.execute(conn);
      await execute('');
      await sql`rollback`.execute(conn);
      await change();
      await sql`begin`.execute(conn);
      const plan = (await execute('explain (analyze, format json) ')).rows[0]!['QUERY PLAN'][0]!.Plan;
      await sql`rollback`.execute(conn);
      const reads = nodesOf(plan).filter((n) => n['Relation Name'] === 'jobs' && n['Node Type'] !== 'ModifyTable');
      return reads.reduce((sum, n) => sum + (n['Actual Rows'] + (n['Rows Removed by Filter'] ?? 0) + (n['Rows Removed by Index Recheck'] ?? 0)) * n['Actual Loops'], 0);
    } finally {
      await sql`rollback`.execute(conn);
      await sql`deallocate planned_before`.execute(conn);
      await sql`reset plan_cache_mode`.execute(conn);
    }
  });
}
