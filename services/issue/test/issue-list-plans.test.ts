import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, sql, type Database } from '@preflight/db';
import { ISSUE_SEVERITIES, type IssueSeverity, type IssueStatus } from '@preflight/contract';
import { TEST_DATABASE_URL } from '@preflight/testing';
import { listIssuesQuery, type IssueListFilter } from '../src/storage/issue-list.ts';
import type { IssueDatabase } from '../src/storage/schema.ts';
import { startHarness, type Harness } from './harness.ts';

/**
 * The list statement (storage/issue-list.ts) on a campaign of 40,000 issues among 80,000: its
 * pages equal a plain ORDER BY … OFFSET's, and its plan reads no more than one severity's index
 * entries whatever the page (EXPLAIN ANALYZE): no sequential scan, a seek for the page.
 */
let h: Harness;
let database: Database<IssueDatabase>;
const campaignId = randomUUID();
const ISSUES = 40_000;
const STATUSES: IssueStatus[] = ['New', 'Acknowledged', 'InProgress', 'Closed'];

beforeAll(async () => {
  h = await startHarness();
  database = createDatabase<IssueDatabase>({ url: TEST_DATABASE_URL, schema: h.schema, poolMax: 1 });
  const other = randomUUID();
  // Rows straight into the schema (the service would take minutes to file them); severities and
  // statuses interleave, another campaign holds as many again. The counts follow by trigger (migration 0004).
  await sql`
    insert into issues (org_id, campaign_id, seq_number, title, severity, severity_rank, type, status, reporter)
    select ${randomUUID()}::uuid, case when n <= ${ISSUES} then ${campaignId}::uuid else ${other}::uuid end,
      case when n <= ${ISSUES} then n else n - ${ISSUES} end, 'Issue ' || n,
      (${sql.val(ISSUE_SEVERITIES)}::text[])[r + 1], r, 'Bug', (${sql.val(STATUSES)}::text[])[(n * 7 % 4) + 1], 'test'
    from generate_series(1, ${2 * ISSUES}) as n, lateral (select (n * 31 % 100 / 25)::smallint as r) x`.execute(database.db);
  await sql`vacuum (analyze) issues, issue_counts`.execute(database.db);
}, 120_000);
afterAll(async () => {
  await database?.close();
  await h?.close();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}

async function explain(filter: IssueListFilter): Promise<PlanNode[]> {
  const q = listIssuesQuery(filter).compile(database.db);
  const { rows } = await database.pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`explain (analyze, format json) ${q.sql}`, [...q.parameters]);
  return nodesOf(rows[0]!['QUERY PLAN'][0]!.Plan);
}

/** The same page the plain way: a count, ORDER BY and OFFSET over the filtered rows. */
async function plainPage(f: IssueListFilter): Promise<{ seqNumbers: number[]; total: number }> {
  const where = sql`campaign_id = ${f.campaignId} ${f.status ? sql`and status = ${f.status}` : sql``} ${f.severity ? sql`and severity = ${f.severity}` : sql``}`;
  const page = await sql<{ seq_number: number }>`
    select seq_number from issues where ${where} order by severity_rank, seq_number limit ${f.pageSize} offset ${(f.page - 1) * f.pageSize}`.execute(database.db);
  const count = await sql<{ n: number }>`select count(*)::integer as n from issues where ${where}`.execute(database.db);
  return { seqNumbers: page.rows.map((r) => r.seq_number), total: count.rows[0]!.n };
}

const filters: Array<{ label: string; status?: IssueStatus; severity?: IssueSeverity; index: string }> = [
  { label: 'no filter', index: 'issues_campaign_severity_seq_idx' },
  { label: 'severity', severity: 'Medium', index: 'issues_campaign_severity_seq_idx' },
  { label: 'status', status: 'InProgress', index: 'issues_campaign_status_severity_seq_idx' },
  { label: 'status and severity', status: 'Acknowledged', severity: 'High', index: 'issues_campaign_status_severity_seq_idx' },
];

describe.each(filters)('the list with $label', ({ status, severity, index }) => {
  const filter = (page: number, pageSize = 50): IssueListFilter => ({ campaignId, page, pageSize, ...(status ? { status } : {}), ...(severity ? { severity } : {}) });

  it('answers the pages a plain ORDER BY … OFFSET answers: first, across severities, last, past the end', async () => {
    const { total } = await plainPage(filter(1));
    const last = Math.ceil(total / 50);
    for (const [page, pageSize] of [[1, 50], [2, 50], [Math.floor(last / 3), 50], [Math.floor(last / 2), 50], [last - 1, 50], [last, 50], [last + 1, 50], [7, 200], [333, 37]] as const) {
      const { rows } = await listIssuesQuery(filter(page, pageSize)).execute(database.db);
      const expected = await plainPage(filter(page, pageSize));
      expect({ page, pageSize, total: rows[0]!.total, seqNumbers: rows.flatMap((r) => (r.seqNumber === null ? [] : [r.seqNumber])) }).toEqual({ page, pageSize, ...expected });
    }
  });

  it('reads no table sequentially and seeks to the page, at page 1 and at the last page', async () => {
    const { total } = await plainPage(filter(1));
    // Index entries of the largest group the page's first row may lie in (a severity, or a severity and status).
    const group = Math.max(...(await sql<{ n: number }>`
      select sum(n)::integer as n from issue_counts where campaign_id = ${campaignId} ${status ? sql`and status = ${status}` : sql``}
      group by severity_rank`.execute(database.db)).rows.map((r) => r.n));
    for (const page of [1, Math.ceil(total / 50)]) {
      const nodes = await explain(filter(page));
      // issue_counts is a few pages: a sequential scan of it is fine.
      expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'issues')).toEqual([]);
      const scans = nodes.filter((n) => n['Relation Name'] === 'issues');
      // The page: an Index Scan returning one page of rows, not the rows before it.
      const pageScan = scans.find((n) => n['Node Type'] === 'Index Scan');
      expect(pageScan?.['Index Name']).toBe(index);
      expect(pageScan!['Actual Rows']).toBeLessThanOrEqual(50);
      // The page's first row: an index-only scan within one group, never the campaign.
      const keyScan = scans.find((n) => n['Node Type'] === 'Index Only Scan');
      expect(keyScan?.['Index Name']).toBe(index);
      expect(keyScan!['Actual Rows']).toBeLessThanOrEqual(group);
      expect(scans).toHaveLength(2);
    }
  });
});

it('gives a campaign with no issues a total of 0 from no issue row', async () => {
  const { rows } = await listIssuesQuery({ campaignId: randomUUID(), page: 1, pageSize: 50 }).execute(database.db);
  expect(rows).toEqual([expect.objectContaining({ total: 0, id: null })]);
});
