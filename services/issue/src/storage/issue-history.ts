import type { Kysely, Transaction } from '@preflight/db';
import type { IssueStatus } from '@preflight/contract';
import type { IssueDatabase } from './schema.ts';

/** One status change of an issue. */
export interface IssueHistoryRow {
  from: IssueStatus | null;
  to: IssueStatus;
  reason: string | null;
  occurredAt: Date;
}

/** Called only inside the transaction that makes the change it records; returns its time. */
export async function appendHistory(
  trx: Transaction<IssueDatabase>,
  entry: { issueId: string; from: IssueStatus | null; to: IssueStatus; reason: string | null },
): Promise<{ occurredAt: Date }> {
  const row = await trx
    .insertInto('issue_history')
    .values({ issue_id: entry.issueId, from_status: entry.from, to_status: entry.to, reason: entry.reason })
    .returning('occurred_at')
    .executeTakeFirstOrThrow();
  return { occurredAt: row.occurred_at };
}

/** Oldest first; the id breaks ties between changes made within one transaction's clock tick. */
export async function historyOf(db: Kysely<IssueDatabase>, issueId: string): Promise<IssueHistoryRow[]> {
  return db
    .selectFrom('issue_history')
    .select(['from_status as from', 'to_status as to', 'reason', 'occurred_at as occurredAt'])
    .where('issue_id', '=', issueId)
    .orderBy('occurred_at')
    .orderBy('id')
    .execute();
}
