import type { Kysely } from '@preflight/db';
import type { CampaignDatabase, SiteRow } from './schema.ts';

export async function insertSite(db: Kysely<CampaignDatabase>, site: { orgId: string; name: string; url: string | null }): Promise<SiteRow> {
  return db
    .insertInto('sites')
    .values({ org_id: site.orgId, name: site.name, url: site.url })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listSites(db: Kysely<CampaignDatabase>, orgId: string): Promise<SiteRow[]> {
  return db.selectFrom('sites').selectAll().where('org_id', '=', orgId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}
