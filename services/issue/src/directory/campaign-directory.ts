import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import { AppError, notFound } from '@preflight/http';
import { findCampaign, upsertCampaign, type CampaignEntry } from '../storage/campaign-entries.ts';
import type { IssueDatabase } from '../storage/schema.ts';
import { CampaignServiceUnavailable, type CampaignClient } from './campaign-client.ts';

export interface CampaignDirectory {
  /**
   * The campaign an issue request addresses. A campaign outside `orgScope` answers exactly like
   * a missing one (404), so its existence does not leak across organisations.
   */
  campaignFor(campaignId: string, orgScope: string | undefined): Promise<CampaignEntry>;
}

/** How long a directory entry is answered from memory before the table is read again. */
export const DIRECTORY_MEMO_TTL_MS = 5_000;
/** Entries kept in memory at most; beyond it the memo starts over (campaigns in use come back at once). */
const DIRECTORY_MEMO_MAX = 10_000;

/**
 * The local directory of campaigns, fed by campaign events (campaign-events.ts) and read
 * through to the campaign service on a miss so a campaign is usable the moment it was created,
 * before its event arrives.
 *
 * In front of the table, a short in-memory memo of complete entries: every issue request reads
 * the directory, and what a request needs from it (that the campaign exists, and its
 * organisation) never changes once the campaign exists. Name and status, which events do
 * change, are at most `DIRECTORY_MEMO_TTL_MS` old here; reads that show them (issue detail)
 * join the table itself. Misses are never memoised, so a campaign created a moment ago is
 * found as soon as the read-through or its event has it.
 */
export function createCampaignDirectory(
  db: Kysely<IssueDatabase>,
  client: CampaignClient,
  logger: Logger,
  memoTtlMs: number = DIRECTORY_MEMO_TTL_MS,
): CampaignDirectory {
  const memo = new Map<string, { entry: CampaignEntry; until: number }>();

  function remember(campaignId: string, entry: CampaignEntry): void {
    if (memoTtlMs <= 0) return;
    if (memo.size >= DIRECTORY_MEMO_MAX) memo.clear();
    memo.set(campaignId, { entry, until: Date.now() + memoTtlMs });
  }

  async function lookUp(campaignId: string): Promise<CampaignEntry | undefined> {
    const held = memo.get(campaignId);
    if (held && held.until > Date.now()) return held.entry;
    const entry = (await findCampaign(db, campaignId)) ?? (await readThrough(campaignId));
    if (entry) remember(campaignId, entry);
    else memo.delete(campaignId);
    return entry;
  }

  async function readThrough(campaignId: string): Promise<CampaignEntry | undefined> {
    let fetched: CampaignEntry | undefined;
    try {
      fetched = await client.fetchCampaign(campaignId);
    } catch (err) {
      if (!(err instanceof CampaignServiceUnavailable)) throw err;
      logger.warn({ err, campaignId }, 'campaign directory read-through failed');
      throw new AppError('dependency_unavailable', `The campaign service is unavailable, so campaign '${campaignId}' could not be looked up; retry shortly.`);
    }
    // The answer is the campaign as it is now: it counts as newer than any event seen so far.
    if (fetched) await upsertCampaign(db, fetched, new Date());
    return fetched;
  }

  return {
    async campaignFor(campaignId, orgScope) {
      const entry = await lookUp(campaignId);
      if (!entry || (orgScope !== undefined && entry.orgId !== orgScope)) throw notFound('campaign', campaignId);
      return entry;
    },
  };
}
