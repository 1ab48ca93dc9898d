import type pg from 'pg';
import { withBenchClient } from '../../lib/postgres.ts';
import { loadCampaignSchema, loadOrganisations } from './campaigns.ts';
import { loadDeliveryLog } from './delivery-log.ts';
import { loadIssueSchema } from './issues.ts';
import type { ScalePlan } from './plan.ts';

/**
 * The scale loader: straight into each service's schema of a running test system (migrated by
 * the services themselves), in SQL that makes the rows on the server (generate_series: no data
 * crosses the wire), then VACUUM (ANALYZE): a database a year old has its statistics and its
 * visibility map (index-only scans) from autovacuum, and autovacuum must not wake up on the
 * loaded rows in the middle of a measured window.
 * Webhook endpoints are not loaded here: the harness creates them through the admin API, so
 * their secrets are sealed as the webhook service seals them.
 */

export interface LoadTiming {
  step: string;
  seconds: number;
  rows: number;
}

/**
 * A loader session: durability is not the point (a crash drops the test schemas anyway), and
 * foreign keys are checked once per table after loading (`checkForeignKeys`) instead of by a
 * trigger per row (session_replication_role = replica skips them; keys, uniques and checks
 * still hold).
 */
async function withLoaderClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  return withBenchClient(async (client) => {
    await client.query('set synchronous_commit = off');
    await client.query('set session_replication_role = replica');
    return fn(client);
  });
}

/** Two loader sessions, one per core of the machine this is sized for. */
const withLoaderSessions = <T>(fn: (clients: [pg.Client, pg.Client]) => Promise<T>): Promise<T> => withLoaderClient((a) => withLoaderClient((b) => fn([a, b])));

/** Every foreign key of `schemas`' tables, checked over the whole table at once (an anti-join); throws on a dangling row. */
export async function checkForeignKeys(client: pg.Client, schemas: string[]): Promise<void> {
  const { rows } = await client.query<{ s: string; t: string; cols: string[]; rs: string; rt: string; rcols: string[] }>(
    `select ns.nspname as s, t.relname as t, rns.nspname as rs, r.relname as rt,
       array(select a.attname from unnest(c.conkey) with ordinality k(n, o) join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.o)::text[] as cols,
       array(select a.attname from unnest(c.confkey) with ordinality k(n, o) join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n order by k.o)::text[] as rcols
     from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_namespace ns on ns.oid = t.relnamespace
       join pg_class r on r.oid = c.confrelid join pg_namespace rns on rns.oid = r.relnamespace
     where c.contype = 'f' and ns.nspname = any($1)`,
    [schemas],
  );
  for (const fk of rows) {
    const on = fk.cols.map((col, i) => `x."${col}" = y."${fk.rcols[i]}"`).join(' and ');
    const notNull = fk.cols.map((col) => `x."${col}" is not null`).join(' and ');
    const { rows: bad } = await client.query<{ n: string }>(
      `select count(*) as n from "${fk.s}"."${fk.t}" x where ${notNull} and not exists (select 1 from "${fk.rs}"."${fk.rt}" y where ${on})`,
    );
    if (Number(bad[0]!.n) > 0) throw new Error(`${bad[0]!.n} rows of ${fk.t} (${fk.cols.join(', ')}) reference no row of ${fk.rt}`);
  }
}

/** VACUUM (ANALYZE) every table of `schemas`: the planner sees the loaded sizes at once, not after autovacuum. */
export async function vacuumSchemas(client: pg.Client, schemas: string[]): Promise<void> {
  const { rows } = await client.query<{ s: string; t: string }>('select schemaname as s, tablename as t from pg_tables where schemaname = any($1)', [schemas]);
  if (rows.length) await client.query(`vacuum (analyze) ${rows.map((r) => `"${r.s}"."${r.t}"`).join(', ')}`);
}

async function timed(timings: LoadTiming[], step: string, rows: number, fn: () => Promise<unknown>): Promise<void> {
  const t0 = performance.now();
  await fn();
  timings.push({ step, seconds: (performance.now() - t0) / 1000, rows });
}

/** Organisations, campaigns, issues with history, and the projections built from them. */
export async function loadTenants(
  schemas: { gateway: string; campaign: string; issue: string },
  p: ScalePlan,
  nowMs: number,
  log: (msg: string) => void,
): Promise<LoadTiming[]> {
  const timings: LoadTiming[] = [];
  await withLoaderSessions(async ([client, second]) => {
    await timed(timings, 'organisations (gateway)', p.orgs + 1, () => loadOrganisations(client, schemas.gateway, p, nowMs));
    const issues = p.issues + p.small.issues + p.small.openIssues;
    await timed(timings, 'issues, history, directory, sequences, 2 sessions (issue)', issues, () => loadIssueSchema([client, second], schemas.issue, p, nowMs, log));
    await timed(timings, 'sites, campaigns, readiness projection (campaign)', issues, () => loadCampaignSchema(client, schemas.campaign, schemas.issue, p, nowMs, log));
    await timed(timings, 'foreign keys checked (gateway, issue, campaign)', 0, () => checkForeignKeys(client, [schemas.gateway, schemas.issue, schemas.campaign]));
    await timed(timings, 'VACUUM (ANALYZE) gateway, issue, campaign', 0, () => vacuumSchemas(client, [schemas.gateway, schemas.issue, schemas.campaign]));
  });
  return timings;
}

/** The delivery log: attempts of the 50 busy endpoints and of the small set's quiet one. */
export async function loadLog(schema: string, p: ScalePlan, o: { busy: string[]; quiet: string; nowMs: number }, log: (msg: string) => void): Promise<LoadTiming[]> {
  const timings: LoadTiming[] = [];
  await withLoaderSessions(async ([first, second]) => {
    await timed(timings, 'delivery attempts, 2 sessions (delivery)', p.attempts + p.small.attempts, () => loadDeliveryLog([first, second], schema, p, o, log));
    await timed(timings, 'foreign keys checked (delivery)', 0, () => checkForeignKeys(first, [schema]));
    await timed(timings, 'VACUUM (ANALYZE) delivery', 0, () => vacuumSchemas(first, [schema]));
  });
  return timings;
}

/** Each schema's tables with their indexes and TOAST, MB on disk. */
export async function schemaSizes(schemas: Record<string, string>): Promise<Record<string, number>> {
  return withBenchClient(async (client) => {
    const { rows } = await client.query<{ s: string; bytes: string }>(
      `select n.nspname as s, sum(pg_total_relation_size(c.oid)) as bytes from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = any($1) and c.relkind = 'r' group by n.nspname`,
      [Object.values(schemas)],
    );
    const bySchema = new Map(rows.map((r) => [r.s, Number(r.bytes) / 1e6]));
    return Object.fromEntries(Object.entries(schemas).map(([service, schema]) => [service, bySchema.get(schema) ?? 0]));
  });
}
