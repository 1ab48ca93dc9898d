import { enqueueDomainEvent, type EventTarget } from '@preflight/bus';
import { sql, type Kysely } from '@preflight/db';
import type { CampaignStatus } from '@preflight/contract';
import { campaignStatusEventKind, createEvent, toTimestamp } from '@preflight/events';
import { canTransition, INITIAL_CAMPAIGN_STATUS } from '../domain/campaign-lifecycle.ts';
import { INITIAL_VERDICT } from '../domain/launch-policy.ts';
import { CAMPAIGN_COLUMNS, campaignsIn, findCampaign } from './campaigns.ts';
import type { Campaign, CampaignDatabase } from './schema.ts';

/*
 * Every change of a campaign's state is one function here, one transaction each. Its domain
 * event (CampaignCreated, CampaignLaunched, CampaignClosed, CampaignStatusChanged) is written
 * to the transactional outbox inside that same transaction, so an event exists if and only if
 * its change committed; the outbox relay publishes it on `<prefix>.campaign.<event>`.
 */

/** Creates a Draft campaign on a site, in the site's organisation; undefined if the site does not exist (in `orgScope`). */
export async function createCampaign(
  db: Kysely<CampaignDatabase>,
  input: { siteId: string; name: string; orgScope?: string | undefined },
  events: EventTarget,
): Promise<Campaign | undefined> {
  return db.transaction().execute(async (trx) => {
    const site = await trx
      .selectFrom('sites')
      .select(['org_id', 'name'])
      .where('id', '=', input.siteId)
      .$if(input.orgScope !== undefined, (qb) => qb.where('org_id', '=', input.orgScope!))
      .executeTakeFirst();
    if (!site) return undefined;
    const campaign = await trx
      .insertInto('campaigns')
      .values({
        org_id: site.org_id,
        site_id: input.siteId,
        name: input.name,
        status: INITIAL_CAMPAIGN_STATUS,
        // No issues and no sign-offs yet.
        readiness_level: INITIAL_VERDICT.readinessLevel,
        gate: INITIAL_VERDICT.gate,
      })
      .returning(CAMPAIGN_COLUMNS)
      .executeTakeFirstOrThrow();
    const event = createEvent('CampaignCreated', {
      campaignId: campaign.id,
      orgId: campaign.orgId,
      siteId: campaign.siteId,
      siteName: site.name,
      name: campaign.name,
      status: campaign.status,
      createdAt: toTimestamp(campaign.createdAt),
    });
    await enqueueDomainEvent(trx, events, event, campaign.orgId);
    return { ...campaign, siteName: site.name };
  });
}

export type StatusChange =
  | { outcome: 'not_found' }
  | { outcome: 'refused'; current: CampaignStatus }
  | { outcome: 'changed'; from: CampaignStatus; campaign: Campaign };

/**
 * Moves a campaign to `to` if the lifecycle allows it from its current status, and records the
 * move in its history. The row lock makes concurrent changes queue up: each one decides
 * against the status the previous one committed, so two cannot both leave the same state.
 */
export async function changeCampaignStatus(
  db: Kysely<CampaignDatabase>,
  input: { campaignId: string; to: CampaignStatus; reason: string | null; orgScope?: string | undefined },
  events: EventTarget,
): Promise<StatusChange> {
  return db.transaction().execute(async (trx) => {
    const locked = await campaignsIn(trx, input.orgScope).select('status').where('id', '=', input.campaignId).forUpdate().executeTakeFirst();
    if (!locked) return { outcome: 'not_found' } as const;
    const from = locked.status;
    if (!canTransition(from, input.to)) return { outcome: 'refused', current: from } as const;

    await trx.updateTable('campaigns').set({ status: input.to, updated_at: sql<Date>`now()` }).where('id', '=', input.campaignId).execute();
    const history = await trx
      .insertInto('campaign_status_history')
      .values({ campaign_id: input.campaignId, from_status: from, to_status: input.to, reason: input.reason })
      .returning('occurred_at')
      .executeTakeFirstOrThrow();

    const campaign = await findCampaign(trx, input.campaignId);
    if (!campaign) throw new Error(`campaign ${input.campaignId} vanished inside its own transaction`);
    // Exactly one event per change: Launched (Draft → Active), Closed (→ Closed) or StatusChanged.
    const fields = {
      campaignId: campaign.id,
      orgId: campaign.orgId,
      name: campaign.name,
      status: input.to,
      oldStatus: from,
      reason: input.reason ?? undefined,
      occurredAt: toTimestamp(history.occurred_at),
    };
    const event = createEvent(campaignStatusEventKind(from, input.to), fields);
    await enqueueDomainEvent(trx, events, event, campaign.orgId);
    return { outcome: 'changed', from, campaign } as const;
  });
}
