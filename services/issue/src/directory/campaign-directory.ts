import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import { AppError, notFound } from '@preflight/http';
import { findCampaign, upsertCampaign, type CampaignEntry } from '../storage/campaign-directory.ts';
import type { IssueDatabase } from '../storage/schema.ts';
import { CampaignServiceUnavailable, type CampaignClient } from './campaign-client.ts';

export interface CampaignDirectory {
  /**
   * The campaign an issue request addresses. A campaign outside `orgScope` answers exactly like
   * a missing one (404), so its existence does not leak across organisations.
   */
  campaignFor(campaignId: string, orgScope: string | undefined): Promise<CampaignEntry>;
}

/**
 * The local directory of campaigns, fed by campaign events (campaign-events.ts) and read
 * through to the campaign service on a miss so a campaign is usable the moment it was created,
 * before its event arrives.
 */
export function createCampaignDirectory(db: Kysely<IssueDatabase>, client: CampaignClient, logger: Logger): CampaignDirectory {
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
      const entry = (await findCampaign(db, campaignId)) ?? (await readThrough(campaignId));
      if (!entry || (orgScope !== undefined && entry.orgId !== orgScope)) throw notFound('campaign', campaignId);
      return entry;
    },
  };
}
