import type { Kysely } from '@preflight/db';
import type { CampaignDatabase, Site } from './schema.ts';

const SITE_COLUMNS = ['id', 'org_id as orgId', 'name', 'url', 'created_at as createdAt'] as const;

export async function insertSite(db: Kysely<CampaignDatabase>, site: { orgId: string; name: string; url: string | null }): Promise<Site> {
  return db
    .insertInto('sites')
    .values({ org_id: site.orgId, name: site.name, url: site.url })
    .returning(SITE_COLUMNS)
    .executeTakeFirstOrThrow();
}

export async function listSites(db: Kysely<CampaignDatabase>, orgId: string): Promise<Site[]> {
  return db.selectFrom('sites').select(SITE_COLUMNS).where('org_id', '=', orgId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}
