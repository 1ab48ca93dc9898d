import { enqueueEvent } from '@preflight/bus';
import type { Kysely } from '@preflight/db';
import { encodeEvent, type DomainEvent } from '@preflight/events';
import type { CampaignDatabase } from './schema.ts';

/** Where events go: the subject prefix (`preflight`, isolated in tests). */
export interface EventTarget {
  prefix: string;
}

/**
 * Puts a domain event of the campaign service in the outbox, inside the transaction that makes
 * the change it announces (every state change of this schema enqueues through here).
 */
export async function enqueueCampaignEvent(trx: Kysely<CampaignDatabase>, target: EventTarget, event: DomainEvent, orgId: string): Promise<string> {
  return enqueueEvent(trx, { ...encodeEvent(event, target.prefix), orgId });
}
