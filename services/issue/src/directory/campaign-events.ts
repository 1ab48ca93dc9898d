import { CAMPAIGN_STATUSES, type CampaignStatus } from '@preflight/contract';
import type { EventHandler } from '@preflight/bus';
import { decodeEvent, fromTimestamp, kindOfSubject, type DomainEventMessage } from '@preflight/events';
import type { Logger } from '@preflight/log';
import { upsertCampaign } from '../storage/campaign-entries.ts';
import type { IssueDatabase } from '../storage/schema.ts';

/** The durable consumer that feeds the campaign directory; also labels its inbox rows and metrics. */
export const DIRECTORY_CONSUMER = 'issue-directory';

/** A malformed event: thrown so the consumer retries it and, in the end, gives it up loudly. */
class BadCampaignEvent extends Error {
  override readonly name = 'BadCampaignEvent';
}

function status(value: string): CampaignStatus {
  if (!(CAMPAIGN_STATUSES as readonly string[]).includes(value)) throw new BadCampaignEvent(`unknown campaign status '${value}'`);
  return value as CampaignStatus;
}

type Timestamp = DomainEventMessage<'CampaignCreated'>['createdAt'];

function time(t: Timestamp, field: string): Date {
  if (!t) throw new BadCampaignEvent(`campaign event without ${field}`);
  return fromTimestamp(t);
}

/**
 * Applies campaign events to the directory through `upsertCampaign()`, inside the consumer's
 * transaction (which also records the event in the inbox, so a redelivery changes nothing).
 * Events may come in any order: each carries its time, and an older one never overwrites what
 * a newer one (or a read-through) wrote.
 */
export function campaignEventHandler(subjectPrefix: string, logger: Logger): EventHandler<IssueDatabase> {
  return async (consumed, trx) => {
    const kind = consumed.type ?? kindOfSubject(consumed.subject, subjectPrefix);
    if (!kind) throw new BadCampaignEvent(`no event type on subject '${consumed.subject}'`);
    const event = decodeEvent(kind, consumed.payload);
    switch (event.kind) {
      case 'CampaignCreated': {
        const m = event.message;
        await upsertCampaign(
          trx,
          {
            campaignId: m.campaignId,
            orgId: m.orgId,
            name: m.name ?? null,
            status: status(m.status),
            siteId: m.siteId,
            siteName: m.siteName ?? null,
            createdAt: time(m.createdAt, 'created_at'),
          },
          time(m.createdAt, 'created_at'),
        );
        return;
      }
      case 'CampaignLaunched':
      case 'CampaignClosed':
      case 'CampaignStatusChanged': {
        const m = event.message;
        await upsertCampaign(
          trx,
          { campaignId: m.campaignId, orgId: m.orgId, name: m.name ?? null, status: status(m.status) },
          time(m.occurredAt, 'occurred_at'),
        );
        return;
      }
      default:
        // Another owner's event on a campaign subject cannot happen; nothing to do if it does.
        logger.debug({ eventId: consumed.id, kind: event.kind }, 'event ignored by the campaign directory');
    }
  };
}
