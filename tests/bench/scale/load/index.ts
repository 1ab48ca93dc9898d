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

/** A loader session: durability is not the point (a crash drops the test schemas anyway). */
async function withLoaderClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  return withBenchClient(async (client) => {
    await client.query('set synchronous_commit = off');
    return fn(client);
  });
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
  await withLoaderClient(async (client) => {
    await timed(timings, 'organisations (gateway)', p.orgs + 1, () => loadOrganisations(client, schemas.gateway, p, nowMs));
    const issues = p.issues + p.small.issues + p.small.openIssues;
    await timed(timings, 'issues, history, directory, sequences (issue)', issues, () => loadIssueSchema(client, schemas.issue, p, nowMs, log));
    await timed(timings, 'sites, campaigns, readiness projection (campaign)', issues, () => loadCampaignSchema(client, schemas.campaign, schemas.issue, p, nowMs, log));
    await timed(timings, 'VACUUM (ANALYZE) gateway, issue, campaign', 0, () => vacuumSchemas(client, [schemas.gateway, schemas.issue, schemas.campaign]));
  });
  return timings;
}

/** The delivery log: attempts of the 50 busy endpoints and of the small set's quiet one. */
export async function loadLog(schema: string, p: ScalePlan, o: { busy: string[]; quiet: string; nowMs: number }, log: (msg: string) => void): Promise<LoadTiming[]> {
  const timings: LoadTiming[] = [];
  await withLoaderClient(async (client) => {
    await timed(timings, 'delivery attempts (delivery)', p.attempts + p.small.attempts, () => loadDeliveryLog(client, schema, p, o, log));
    await timed(timings, 'VACUUM (ANALYZE) delivery', 0, () => vacuumSchemas(client, [schema]));
  });
  return timings;
}
