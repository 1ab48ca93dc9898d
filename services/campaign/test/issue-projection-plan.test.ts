import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, migrateToLatest, sql, type Kysely } from '@preflight/db';
import { createLogger } from '@preflight/log';
import { TEST_DATABASE_URL, dropSchemas, isolatedName } from '@preflight/testing';
import type { IssueState } from '../src/domain/issue-stats.ts';
import { campaignMigrations } from '../src/migrations/index.ts';
import { projectStatement } from '../src/storage/issue-projection.ts';
import type { CampaignDatabase } from '../src/storage/schema.ts';

/**
 * The readiness projection's statement runs for every issue event. Its plan is cached per
 * connection (prepared statements), and a plan made while the table was empty must not scan
 * the table once it has grown: an event reads its issues' rows by key, whatever the size.
 */
const schema = isolatedName('campaign_projection_plan');
const database = createDatabase<CampaignDatabase>({ url: TEST_DATABASE_URL, schema, poolMax: 1, applicationName: 'campaign-projection-plan-test' });
const db: Kysely<CampaignDatabase> = database.db;

beforeAll(async () => {
  await migrateToLatest(db as Kysely<unknown>, schema, campaignMigrations, createLogger('campaign-projection-plan-test', { level: 'silent' }));
});
afterAll(async () => {
  await database.close();
  await dropSchemas([schema]);
});

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}
const nodesOf = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];

const lit = (v: string | number | null) => (v === null ? 'null' : typeof v === 'number' ? String(v) : `'${v.replaceAll("'", "''")}'`);

describe('the issue projection statement', () => {
  it('reads the projected rows of its issues by key, with a plan cached while the table was empty', async () => {
    const campaignId = randomUUID();
    const issue = (): IssueState => ({ issueId: randomUUID(), campaignId, orgId: randomUUID(), severity: 'High', status: 'New', revision: 1, testerEmail: null });
    const compiled = projectStatement([issue()]).compile(db);
    // The arguments of EXECUTE as literals: one issue, in the statement's parameter order.
    const args = (i: IssueState) =>
      [i.issueId, i.campaignId, i.orgId, i.severity, i.status, i.revision, i.testerEmail].map((v, n) => `array[${lit(v)}]::${['uuid', 'uuid', 'uuid', 'text', 'text', 'integer', 'text'][n]}[]`).join(', ');

    await db.connection().execute(async (conn) => {
      await sql`set plan_cache_mode = force_generic_plan`.execute(conn);
      await sql.raw(`prepare project as ${compiled.sql}`).execute(conn);
      // Planned now, on an empty table, and kept: nothing analyses the table afterwards.
      await sql.raw(`execute project(${args(issue())})`).execute(conn);
      await sql`
        insert into issue_projection (issue_id, campaign_id, org_id, severity, status, revision)
        select gen_random_uuid(), ${campaignId}::uuid, gen_random_uuid(), 'Low', 'New', 1 from generate_series(1, 20000)`.execute(conn);

      const known = issue();
      await sql.raw(`execute project(${args(known)})`).execute(conn);
      const explained = await sql.raw<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`explain (analyze, format json) execute project(${args({ ...known, status: 'Fixed', revision: 2 })})`).execute(conn);
      const nodes = nodesOf(explained.rows[0]!['QUERY PLAN'][0]!.Plan).filter((n) => n['Relation Name'] === 'issue_projection');
      const read = nodes.reduce((sum, n) => sum + (n['Actual Rows'] ?? 0) * (n['Actual Loops'] ?? 1) + (n['Rows Removed by Filter'] ?? 0), 0);
      expect(nodes.length).toBeGreaterThan(0);
      expect(read).toBeLessThan(10);
      await sql`deallocate project`.execute(conn);
    });
  });
});
