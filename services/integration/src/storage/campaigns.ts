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

/** The names of these campaigns that are known (one query for a batch of events). */
export async function campaignNames(db: Kysely<IntegrationDatabase> | Transaction<IntegrationDatabase>, campaignIds: string[]): Promise<Map<string, string | null>> {
  if (campaignIds.length === 0) return new Map();
  const rows = await db.selectFrom('campaigns').select(['campaign_id', 'name']).where('campaign_id', 'in', campaignIds).execute();
  return new Map(rows.map((r) => [r.campaign_id, r.name]));
}
