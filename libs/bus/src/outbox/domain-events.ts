import type { Kysely } from 'kysely';
import { encodeEvent, type DomainEvent } from '@preflight/events';
import { enqueueEvents } from './enqueue.ts';

/** Where a service's domain events go: the subject prefix of this deployment (`EVENTS_SUBJECT_PREFIX`; isolated in tests). */
export interface EventTarget {
  subjectPrefix: string;
}

/**
 * Puts domain events of one organisation in the outbox, in order and in one statement, inside
 * the transaction that makes the change they announce: the rows exist if and only if the change
 * commits, and the relay publishes them afterwards. Every service enqueues its events here.
 */
export async function enqueueDomainEvents(trx: Kysely<any>, target: EventTarget, events: DomainEvent[], orgId: string): Promise<string[]> {
  return enqueueEvents(
    trx,
    events.map((event) => ({ ...encodeEvent(event, target.subjectPrefix), orgId })),
  );
}

/** `enqueueDomainEvents` of one event; answers its id. */
export async function enqueueDomainEvent(trx: Kysely<any>, target: EventTarget, event: DomainEvent, orgId: string): Promise<string> {
  const [id] = await enqueueDomainEvents(trx, target, [event], orgId);
  return id!;
}
