import { sql, type Kysely } from '@preflight/db';
import type { CampaignStatus } from '@preflight/contract';
import type { Campaign, CampaignDatabase } from './schema.ts';

/** A campaign's own columns as a `Campaign` has them (its site's name comes from the join). */
export const CAMPAIGN_COLUMNS = [
  'campaigns.id',
  'campaigns.org_id as orgId',
  'campaigns.site_id as siteId',
  'campaigns.name',
  'campaigns.status',
  'campaigns.readiness_level as readinessLevel',
  'campaigns.gate',
  'campaigns.created_at as createdAt',
] as const;

/**
 * Campaigns with their site's name, the shape every read needs. A campaign's site is of its
 * organisation (campaign-changes.ts creates it there), and saying so in the join lets Postgres
 * carry an organisation filter over to `sites` (its org index) instead of scanning every
 * organisation's sites for a hash join.
 */
export function selectCampaigns(db: Kysely<CampaignDatabase>) {
  return db
    .selectFrom('campaigns')
    .innerJoin('sites', (join) => join.onRef('sites.id', '=', 'campaigns.site_id').onRef('sites.org_id', '=', 'campaigns.org_id'))
    .select(CAMPAIGN_COLUMNS)
    .select('sites.name as siteName');
}

/**
 * The campaigns a caller confined to `orgScope` may name: a console member's organisation's, or
 * every one for the operator (undefined). Every admin lookup of a campaign by id starts here, so
 * another organisation's campaign is missing to a member, checked before anything is written.
 */
export function campaignsIn(db: Kysely<CampaignDatabase>, orgScope: string | undefined) {
  const campaigns = db.selectFrom('campaigns');
  return orgScope === undefined ? campaigns : campaigns.where('campaigns.org_id', '=', orgScope);
}

/**
 * One campaign. With `orgId` the lookup is confined to that organisation, so another
 * organisation's campaign is indistinguishable from a missing one.
 */
export async function findCampaign(db: Kysely<CampaignDatabase>, id: string, orgId?: string): Promise<Campaign | undefined> {
  let query = selectCampaigns(db).where('campaigns.id', '=', id);
  if (orgId !== undefined) query = query.where('campaigns.org_id', '=', orgId);
  return query.executeTakeFirst();
}

/**
 * An organisation's campaigns, newest first (id breaks ties so the order is stable), each as
 * `toPublicCampaign` (views/campaign-view.ts) maps a `selectCampaigns` row: the JSON text of
 * the array, made by Postgres. The list is unpaged by contract (public-api-v1.md 4.2), so a
 * large organisation's list costs Node no per-row parsing, mapping or serialising. Dates read
 * as `toISOString` writes them (milliseconds, truncated as the pg driver does);
 * test/campaign-list-json.test.ts keeps the two equal.
 */
export async function listCampaignsJson(db: Kysely<CampaignDatabase>, orgId: string, filter: { status?: CampaignStatus | undefined } = {}): Promise<string> {
  const text = (v: unknown) => sql`coalesce(to_json(${v})::text, 'null')`;
  const { rows } = await sql<{ body: string }>`
    select coalesce(string_agg(
      '{"id":"' || c.id || '","name":' || ${text(sql.ref('c.name'))} || ',"status":' || ${text(sql.ref('c.status'))}
        || ',"siteId":"' || c.site_id || '","siteName":' || ${text(sql.ref('s.name'))}
        || ',"readinessLevel":' || ${text(sql.ref('c.readiness_level'))} || ',"gate":' || ${text(sql.ref('c.gate'))}
        || ',"createdAt":"' || to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"}',
      ',' order by c.created_at desc, c.id desc), '') as body
    from campaigns c
    join sites s on s.id = c.site_id and s.org_id = c.org_id
    where c.org_id = ${orgId} ${filter.status === undefined ? sql`` : sql`and c.status = ${filter.status}`}`.execute(db);
  return `[${rows[0]?.body ?? ''}]`;
}
