import { sql, type Transaction } from '@preflight/db';
import type { IssueDatabase } from './schema.ts';

/**
 * The next seqNumber of a campaign. The upsert takes the campaign's row lock, so concurrent
 * creates queue behind each other until commit; a rollback releases the number unused, which
 * keeps the sequence gapless (a Postgres sequence would not).
 */
export async function nextSeqNumber(trx: Transaction<IssueDatabase>, campaignId: string): Promise<number> {
  const row = await trx
    .insertInto('campaign_sequences')
    .values({ campaign_id: campaignId, last_seq: 1 })
    .onConflict((oc) => oc.column('campaign_id').doUpdateSet({ last_seq: sql<number>`campaign_sequences.last_seq + 1` }))
    .returning('last_seq')
    .executeTakeFirstOrThrow();
  return row.last_seq;
}
