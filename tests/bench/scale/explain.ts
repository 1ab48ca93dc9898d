import type { IssueSeverity, IssueStatus } from '@preflight/contract';
import { createDatabase } from '@preflight/db';
import { TEST_DATABASE_URL } from '@preflight/testing';
import { listIssuesQuery } from '../../../services/issue/src/storage/issue-list.ts';
import { withBenchClient } from '../lib/postgres.ts';

/**
 * The plans Postgres chose for the measured reads on the loaded data: the statements the
 * services send (the issue list's compiled from the service's own builder; the others as their
 * storage modules build them, kept in step by hand, so a plan there is evidence about the
 * shape, not a test of the code), EXPLAIN ANALYZE'd once each. A sequential
 * scan of a large table is what an index would fix.
 */

export interface PlanSummary {
  label: string;
  /** The plan's nodes, outermost first: "Limit → Index Scan using … on issues". */
  shape: string;
  executionMs: number;
  /** Tables read by a sequential scan, with the rows it read. */
  seqScans: string[];
  /** Shared buffers hit and read (8 kB pages). */
  buffers: number;
}

export interface ExplainQuery {
  label: string;
  sql: string;
  params: unknown[];
  /** The schema its unqualified names are in, when they are not qualified. */
  searchPath?: string;
}

/** Compiles kysely statements to SQL text only: its pool never opens a connection. */
const compiler = createDatabase<unknown>({ url: TEST_DATABASE_URL, schema: 'public', poolMax: 1 }).db;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

function walk(node: PlanNode, visit: (n: PlanNode, depth: number) => void, depth = 0): void {
  visit(node, depth);
  for (const child of node.Plans ?? []) walk(child, visit, depth + 1);
}

const describe = (n: PlanNode) => `${n['Node Type']}${n['Index Name'] ? ` using ${n['Index Name']}` : ''}${n['Relation Name'] ? ` on ${n['Relation Name']}` : ''}`;

export async function explainAll(queries: ExplainQuery[]): Promise<PlanSummary[]> {
  return withBenchClient(async (client) => {
    const out: PlanSummary[] = [];
    for (const q of queries) {
      await client.query(q.searchPath ? `set search_path to "${q.searchPath}"` : 'reset search_path');
      const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode; 'Execution Time': number }> }>(`explain (analyze, buffers, format json) ${q.sql}`, q.params);
      const { Plan: plan, 'Execution Time': executionMs } = rows[0]!['QUERY PLAN'][0]!;
      const nodes: string[] = [];
      const seqScans: string[] = [];
      walk(plan, (n) => {
        nodes.push(describe(n));
        if (n['Node Type'] === 'Seq Scan') seqScans.push(`${n['Relation Name']} (${((n['Actual Rows'] ?? 0) * (n['Actual Loops'] ?? 1)).toLocaleString('en-US')} rows out)`);
      });
      out.push({ label: q.label, shape: nodes.join(' → '), executionMs, seqScans, buffers: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0) });
    }
    return out;
  });
}

/**
 * The list of a campaign's issues: the statement services/issue builds (storage/issue-list.ts
 * `listIssuesQuery`, compiled here, not copied), run in the issue schema.
 */
export function listIssuesSql(schema: string, campaignId: string, page: number, filter?: { status: IssueStatus; severity: IssueSeverity }): ExplainQuery {
  const compiled = listIssuesQuery({ campaignId, page, pageSize: 50, ...filter }).compile(compiler);
  return { label: `list issues, page ${page}${filter ? ', filtered' : ''}`, sql: compiled.sql, params: [...compiled.parameters], searchPath: schema };
}

/** The smallest UUIDv7 of millisecond `ms` (services/delivery storage/retention.ts `v7Floor`). */
export function v7Floor(ms: number): string {
  const hex = Math.floor(ms).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

/** The other measured reads' statements, as their storage modules build them. */
export function otherReadsSql(schemas: { issue: string; campaign: string; delivery: string }, o: { issueId: string; orgId: string; endpointId: string; cutoff: string }): ExplainQuery[] {
  const [i, c, d] = [schemas.issue, schemas.campaign, schemas.delivery].map((s) => `"${s}"`);
  return [
    {
      label: 'one issue (services/issue findIssueDetail)',
      sql: `select i.*, c.name, c.site_id, c.site_name, dup.seq_number from ${i}.issues i join ${i}.campaign_directory c on c.campaign_id = i.campaign_id
            left join ${i}.issues dup on dup.id = i.duplicate_of_id where i.id = $1 and i.org_id = $2`,
      params: [o.issueId, o.orgId],
    },
    { label: 'its history (issue-history.ts)', sql: `select * from ${i}.issue_history where issue_id = $1 order by occurred_at, id`, params: [o.issueId] },
    {
      label: "an organisation's campaigns (campaign listCampaignsJson, its rows)",
      sql: `select c.*, s.name as site_name from ${c}.campaigns c join ${c}.sites s on s.id = c.site_id and s.org_id = c.org_id where c.org_id = $1 order by c.created_at desc, c.id desc`,
      params: [o.orgId],
    },
    {
      label: 'delivery log, 50 newest (delivery listAttempts)',
      sql: `select * from ${d}.delivery_attempts where endpoint_id = $1 order by attempted_at desc, attempt desc limit 50`,
      params: [o.endpointId],
    },
    {
      label: 'retention batch (delivery deleteAttemptsBefore, its select)',
      sql: `select ctid from ${d}.delivery_attempts where attempt_id < $1::uuid and attempted_at < now() - interval '29 days' order by attempt_id limit 5000`,
      params: [o.cutoff],
    },
  ];
}
