import type { Kysely, Transaction } from '@preflight/db';
import type { IntegrationDatabase } from './schema.ts';

/** Keeps a campaign's name for the messages; an older event never overwrites a newer one. */
export async function upsertCampaign(trx: Transaction<IntegrationDatabase>, c: { campaignId: string; orgId: string; name: string | null; at: Date }): Promise<void> {
  await trx
    .insertInto('campaigns')
    .values({ campaign_id: c.campaignId, org_id: c.orgId, name: c.name, updated_at: c.at })
    .onConflict((oc) => oc.column('campaign_id').doUpdateSet({ name: c.name, updated_at: c.at }).where('campaigns.updated_at', '<=', c.at))
    .execute();
}

export async function campaignName(db: Kysely<IntegrationDatabase> | Transaction<IntegrationDatabase>, campaignId: string): Promise<string | null> {
  const row = await db.selectFrom('campaigns').select('name').where('campaign_id', '=', campaignId).executeTakeFirst();
  return row?.name ?? null;
}
