import { enqueueEvents } from '@preflight/bus';
import type { Transaction } from '@preflight/db';
import { encodeEvent, type DomainEvent } from '@preflight/events';
import type { IssueDatabase } from './schema.ts';

/** Where events go: the subject prefix of this deployment (`EVENTS_SUBJECT_PREFIX`). */
export interface EventTarget {
  subjectPrefix: string;
}

/**
 * Puts a domain event in the outbox, inside the transaction that makes the change it announces:
 * the row exists if and only if the change commits; the relay publishes it afterwards.
 */
export async function enqueueIssueEvent(trx: Transaction<IssueDatabase>, target: EventTarget, event: DomainEvent, orgId: string): Promise<string> {
  const [id] = await enqueueIssueEvents(trx, target, [event], orgId);
  return id!;
}

/** `enqueueIssueEvent` for several events of one organisation, in one statement, in order. */
export async function enqueueIssueEvents(trx: Transaction<IssueDatabase>, target: EventTarget, events: DomainEvent[], orgId: string): Promise<string[]> {
  return enqueueEvents(
    trx,
    events.map((event) => ({ ...encodeEvent(event, target.subjectPrefix), orgId })),
  );
}
