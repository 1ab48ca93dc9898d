import { KeyedBatcher, type Kysely } from '@preflight/db';
import type { CampaignEntry } from './campaign-entries.ts';
import { createIssues, type NewIssue } from './issues.ts';
import type { EventTarget } from '@preflight/bus';
import type { IssueDatabase } from './schema.ts';

/** Most issues filed in one transaction. */
const MAX_ISSUES_PER_TRANSACTION = 64;

export interface IssueFiling {
  /** Files one issue; resolves once its transaction committed. */
  file(campaign: CampaignEntry, issue: NewIssue): Promise<{ id: string; seqNumber: number }>;
}

/**
 * Group commit per campaign. Every issue of a campaign takes the campaign's sequence row, held
 * until its transaction has committed (its WAL flush included): so a campaign's issues are
 * filed one transaction after the other however many requests arrive, and one transaction per
 * issue capped a campaign at one commit's worth of issues. Requests that arrive while a
 * campaign's transaction is being written are gathered and filed together in the next one
 * (consecutive seqNumbers in arrival order, one commit); a lone request is filed at once,
 * waiting for nothing. A gathered transaction that fails is redone one issue per transaction,
 * so one request's failure is its own. Different campaigns are filed concurrently.
 */
export function issueFiling(db: Kysely<IssueDatabase>, events: EventTarget): IssueFiling {
  const batcher = new KeyedBatcher<string, { campaign: CampaignEntry; issue: NewIssue }, { id: string; seqNumber: number }>(
    (_campaignId, items) =>
      createIssues(
        db,
        events,
        items[0]!.campaign,
        items.map((i) => i.issue),
      ),
    MAX_ISSUES_PER_TRANSACTION,
  );
  return {
    // uuids: a campaign id in capitals is the same campaign, so the same queue.
    file: (campaign, issue) => batcher.add(campaign.campaignId.toLowerCase(), { campaign, issue }),
  };
}
