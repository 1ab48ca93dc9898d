import { sql, type Kysely } from '@preflight/db';
import { SEVERITY_RANK, type IssueSeverity, type IssueStatus, type IssueType } from '@preflight/contract';
import type { IssueDatabase } from './schema.ts';

/** What a list entry shows (views/issue-view.ts `toIssueSummary`), not the whole row. */
export interface IssueSummaryRow {
  id: string;
  seqNumber: number;
  title: string;
  type: IssueType;
  severity: IssueSeverity;
  status: IssueStatus;
  assigneeName: string | null;
  pageUrl: string | null;
  createdAt: Date;
}

/** Each field of IssueSummaryRow and its column, aliased in SQL so rows need no mapping. */
const SUMMARY_COLUMNS: Record<keyof IssueSummaryRow, string> = {
  id: 'id',
  seqNumber: 'seq_number',
  title: 'title',
  type: 'type',
  severity: 'severity',
  status: 'status',
  assigneeName: 'assignee_name',
  pageUrl: 'page_url',
  createdAt: 'created_at',
};

/** The aliased select list, built once: the list is the hottest read. */
const SUMMARY_SELECT = sql.join(Object.entries(SUMMARY_COLUMNS).map(([field, column]) => sql`${sql.ref(`i.${column}`)} as ${sql.id(field)}`));

export interface IssueListFilter {
  campaignId: string;
  status?: IssueStatus | undefined;
  severity?: IssueSeverity | undefined;
  page: number;
  pageSize: number;
}

/** A row of the statement: the total, and a page's entry or (past the end) nulls. */
type ListRow = { [K in keyof IssueSummaryRow]: IssueSummaryRow[K] | null } & { total: number; severity_rank: number | null };

/**
 * One page of a campaign's issues, most severe first, then by seqNumber (unique per campaign,
 * so the order is total and consecutive pages neither overlap nor skip), with the total of the
 * filter. The cost does not grow with the campaign (docs/issue-lists.md): the total is a sum of
 * the campaign's issue counts (kept by trigger, migrations/0004), which also place the page's first row in one
 * severity; only within that severity is there an OFFSET, over an index-only scan; the page
 * itself is a seek from that row. One statement, so counts and rows are of one snapshot; a page
 * past the end is one row of nulls carrying the total.
 */
export function listIssuesQuery(filter: IssueListFilter) {
  const offset = (filter.page - 1) * filter.pageSize;
  // Both filters are equalities on leading columns of an index in the list's order:
  // (campaign_id, severity_rank, seq_number) without a status, (campaign_id, status, severity_rank, seq_number) with one.
  const status = filter.status ? sql`and i.status = ${filter.status}` : sql``;
  const severity = filter.severity ? sql`and i.severity_rank = ${SEVERITY_RANK[filter.severity]}::smallint` : sql``;
  // `i` names issue_counts in `groups` too, so the same filter fragments apply to both tables.
  return sql<ListRow>`
    with groups as (
      select i.severity_rank, sum(i.n)::bigint as n from issue_counts i
      where i.campaign_id = ${filter.campaignId} ${status} ${severity}
      group by i.severity_rank
    ), placed as (
      select severity_rank, n, ${offset}::bigint - (sum(n) over (order by severity_rank) - n)::bigint as skip from groups
    ), start as (
      select severity_rank, skip from placed where skip >= 0 and skip < n order by severity_rank limit 1
    ), first_row as (
      select k.severity_rank, k.seq_number from start cross join lateral (
        select i.severity_rank, i.seq_number from issues i
        where i.campaign_id = ${filter.campaignId} ${status} and i.severity_rank = start.severity_rank
        order by i.seq_number offset start.skip limit 1
      ) k
    )
    select t.total, p.* from (select coalesce(sum(n), 0)::integer as total from groups) t
    left join lateral (
      select ${SUMMARY_SELECT}, i.severity_rank from issues i
      where i.campaign_id = ${filter.campaignId} ${status} ${severity}
        -- Scalar subqueries: parameters of the index scan's condition, not a join's filter.
        and (i.severity_rank, i.seq_number) >= ((select severity_rank from first_row), (select seq_number from first_row))
      order by i.severity_rank, i.seq_number
      limit ${filter.pageSize}
    ) p on true
    order by p.severity_rank, p."seqNumber"`;
}

export async function listIssues(db: Kysely<IssueDatabase>, filter: IssueListFilter): Promise<{ rows: IssueSummaryRow[]; total: number }> {
  const { rows } = await listIssuesQuery(filter).execute(db);
  const total = rows[0]?.total ?? 0;
  const page = rows.filter((r): r is ListRow & IssueSummaryRow => r.id !== null);
  return { rows: page.map(({ total: _total, severity_rank: _rank, ...row }) => row), total };
}
