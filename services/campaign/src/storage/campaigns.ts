import type { Kysely } from '@preflight/db';
import type { CampaignStatus } from '@preflight/contract';
import type { CampaignDatabase, CampaignRow } from './schema.ts';

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
    .selectAll('campaigns')
    .select('sites.name as site_name');
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
export async function findCampaign(db: Kysely<CampaignDatabase>, id: string, orgId?: string): Promise<CampaignRow | undefined> {
  let query = selectCampaigns(db).where('campaigns.id', '=', id);
  if (orgId !== undefined) query = query.where('campaigns.org_id', '=', orgId);
  return query.executeTakeFirst();
}

/** An organisation's campaigns, newest first; id breaks ties so the order is stable. */
export async function listCampaigns(db: Kysely<CampaignDatabase>, orgId: string, filter: { status?: CampaignStatus | undefined } = {}): Promise<CampaignRow[]> {
  let query = selectCampaigns(db).where('campaigns.org_id', '=', orgId);
  if (filter.status !== undefined) query = query.where('campaigns.status', '=', filter.status);
  return query.orderBy('campaigns.created_at', 'desc').orderBy('campaigns.id', 'desc').execute();
}
