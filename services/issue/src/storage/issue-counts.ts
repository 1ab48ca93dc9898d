import { sql, type Transaction } from '@preflight/db';
import type { IssueStatus } from '@preflight/contract';
import type { IssueDatabase } from './schema.ts';

/**
 * The per-campaign counts by severity and status (migrations/0004) that give an issue list its
 * total and its starting key (issue-list.ts). Every writer moves them in its own transaction, and
 * takes their rows in one order, ascending (severity_rank, status): a create the New rows of its
 * severities (issues.ts `createIssues`, after the campaign's sequence row), a status change the
 * two rows of its severity (below). Transactions that take locks in one order cannot deadlock.
 */

/**
 * One issue moves from `from` to `to`: -1 and +1 in one statement whose rows are sorted by status,
 * so two changes in opposite directions (New → Acknowledged, Acknowledged → New) queue instead of
 * deadlocking. The row of `to` is made on its first use.
 */
export async function moveIssueCount(
  trx: Transaction<IssueDatabase>,
  move: { campaignId: string; severityRank: number; from: IssueStatus; to: IssueStatus },
): Promise<void> {
  await sql`
    insert into issue_counts (campaign_id, severity_rank, status, n)
    select ${move.campaignId}::uuid, ${move.severityRank}::smallint, status, delta
    from (values (${move.from}::text, -1), (${move.to}::text, 1)) as d(status, delta)
    order by status
    on conflict (campaign_id, severity_rank, status) do update set n = issue_counts.n + excluded.n`.execute(trx);
}
