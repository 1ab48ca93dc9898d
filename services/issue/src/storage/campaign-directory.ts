import { sql, type Kysely } from '@preflight/db';
import type { CampaignStatus } from '@preflight/contract';
import type { IssueDatabase } from './schema.ts';

/** What the issue service knows about a campaign (a copy; the campaign service owns it). */
export interface CampaignEntry {
  campaignId: string;
  orgId: string;
  name: string | null;
  status: CampaignStatus | null;
  siteId: string;
  siteName: string | null;
  createdAt: Date;
}

export async function findCampaign(db: Kysely<IssueDatabase>, campaignId: string): Promise<CampaignEntry | undefined> {
  const row = await db.selectFrom('campaign_directory').selectAll().where('campaign_id', '=', campaignId).executeTakeFirst();
  if (!row) return undefined;
  return {
    campaignId: row.campaign_id,
    orgId: row.org_id,
    name: row.name,
    status: row.status,
    siteId: row.site_id,
    siteName: row.site_name,
    createdAt: row.created_at,
  };
}

/**
 * The one way a campaign enters or changes in the directory, whether it comes from the
 * read-through on a miss or (later) from a campaign event.
 */
export async function upsertCampaign(db: Kysely<IssueDatabase>, entry: CampaignEntry): Promise<void> {
  const values = {
    org_id: entry.orgId,
    name: entry.name,
    status: entry.status,
    site_id: entry.siteId,
    site_name: entry.siteName,
    created_at: entry.createdAt,
  };
  await db
    .insertInto('campaign_directory')
    .values({ campaign_id: entry.campaignId, ...values })
    .onConflict((oc) => oc.column('campaign_id').doUpdateSet({ ...values, refreshed_at: sql<Date>`now()` }))
    .execute();
}
