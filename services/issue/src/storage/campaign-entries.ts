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

/** What a status event (launched, closed, other change) knows: no site, no creation time. */
export type CampaignStatusUpdate = Pick<CampaignEntry, 'campaignId' | 'orgId' | 'name' | 'status'>;

/**
 * A campaign usable for issues: complete rows only. A row a status event created before
 * CampaignCreated arrived lacks its site, so it counts as a miss (and the read-through fills it).
 */
export async function findCampaign(db: Kysely<IssueDatabase>, campaignId: string): Promise<CampaignEntry | undefined> {
  const row = await db
    .selectFrom('campaign_directory')
    .selectAll()
    .where('campaign_id', '=', campaignId)
    .where('site_id', 'is not', null)
    .where('created_at', 'is not', null)
    .executeTakeFirst();
  if (!row || row.site_id === null || row.created_at === null) return undefined;
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
 * The one way a campaign enters or changes in the directory: from the read-through on a miss
 * (a complete entry, `asOf` = when it was fetched, so it counts as the freshest data) or from a
 * campaign event (`asOf` = the event's occurred_at / created_at).
 *
 * Order-safe, since events arrive in any order and may be redelivered:
 * - name and status are taken only from a source newer than the newest one applied so far
 *   (`source_occurred_at`); an older or equally old one changes nothing;
 * - site and creation time come only with complete entries (CampaignCreated, read-through) and
 *   do not change: they fill a row a status event created first, whatever the order, and a
 *   newer complete source refreshes them.
 *
 * Returns whether anything changed.
 */
export async function upsertCampaign(db: Kysely<IssueDatabase>, entry: CampaignEntry | CampaignStatusUpdate, asOf: Date): Promise<boolean> {
  const complete = 'siteId' in entry;
  const siteId = complete ? entry.siteId : null;
  const siteName = complete ? entry.siteName : null;
  const createdAt = complete ? entry.createdAt : null;
  const newer = sql`(d.source_occurred_at is null or excluded.source_occurred_at > d.source_occurred_at)`;
  const fill = sql`(${complete} and (d.site_id is null or ${newer}))`;
  const result = await sql<{ campaign_id: string }>`
    insert into campaign_directory as d
      (campaign_id, org_id, name, status, site_id, site_name, created_at, source_occurred_at, refreshed_at)
    values
      (${entry.campaignId}, ${entry.orgId}, ${entry.name}, ${entry.status}, ${siteId}, ${siteName}, ${createdAt}, ${asOf}, now())
    on conflict (campaign_id) do update set
      name = case when ${newer} then excluded.name else d.name end,
      status = case when ${newer} then excluded.status else d.status end,
      site_id = case when ${fill} then excluded.site_id else d.site_id end,
      site_name = case when ${fill} then excluded.site_name else d.site_name end,
      created_at = case when ${fill} then excluded.created_at else d.created_at end,
      source_occurred_at = greatest(d.source_occurred_at, excluded.source_occurred_at),
      refreshed_at = now()
    where ${newer} or ${fill}
    returning campaign_id`.execute(db);
  return result.rows.length > 0;
}
