import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { headers } from '@nats-io/nats-core';
import { EVENT_TYPE_HEADER, ORG_ID_HEADER } from '@preflight/bus';
import { createEvent, decodeEvent, encodeEvent, toTimestamp, type DomainEvent, type DomainEventInit } from '@preflight/events';
import type { TestService } from './harness.ts';

/** A message as it sits in the stream, decoded. */
export interface StreamedEvent {
  seq: number;
  subject: string;
  msgId: string | undefined;
  type: string | undefined;
  orgId: string | undefined;
  event: DomainEvent;
}

/** Every message in the service's stream on subjects starting with `subjectStart`, in order. */
export async function streamedEvents(svc: TestService, subjectStart: string): Promise<StreamedEvent[]> {
  const jsm = await jetstreamManager(svc.service.nats);
  const info = await jsm.streams.info(svc.stream);
  const out: StreamedEvent[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(svc.stream, { seq }).catch(() => null);
    if (!m || !m.subject.startsWith(subjectStart)) continue;
    const type = m.header?.get(EVENT_TYPE_HEADER) || undefined;
    out.push({
      seq,
      subject: m.subject,
      msgId: m.header?.get('Nats-Msg-Id') || undefined,
      type,
      orgId: m.header?.get(ORG_ID_HEADER) || undefined,
      event: decodeEvent(type ?? '', m.data),
    });
  }
  return out;
}

/** The campaign events about one campaign, in stream order. */
export async function campaignEvents(svc: TestService, campaignId: string): Promise<StreamedEvent[]> {
  const all = await streamedEvents(svc, `${svc.prefix}.campaign.`);
  return all.filter((e) => 'campaignId' in e.event.message && e.event.message.campaignId === campaignId);
}

/**
 * Publishes an issue event the way the issue service's relay would: on `<prefix>.issue.*`,
 * with `Nats-Msg-Id` and the type and org headers. Returns the msgID and whether JetStream
 * dropped it as a duplicate.
 */
export async function publishIssueEvent<K extends 'IssueCreated' | 'IssueStatusChanged' | 'IssueAssigned'>(
  svc: TestService,
  kind: K,
  init: DomainEventInit<K>,
  msgID: string = randomUUID(),
): Promise<{ msgID: string; duplicate: boolean }> {
  const encoded = encodeEvent(createEvent(kind, init), svc.prefix);
  const h = headers();
  h.set(EVENT_TYPE_HEADER, encoded.type);
  const orgId = (init as { orgId?: string }).orgId;
  if (orgId) h.set(ORG_ID_HEADER, orgId);
  const ack = await svc.service.js.publish(encoded.subject, encoded.payload, { msgID, headers: h });
  return { msgID, duplicate: ack.duplicate };
}

/** An IssueCreated for `campaignId`, revision 1. */
export function issueCreated(input: { issueId?: string; orgId: string; campaignId: string; severity: string | undefined; status?: string }) {
  return {
    issueId: input.issueId ?? randomUUID(),
    orgId: input.orgId,
    campaignId: input.campaignId,
    seqNumber: 1,
    title: 'Checkout button does nothing',
    severity: input.severity,
    type: 'Bug',
    status: input.status ?? 'New',
    createdAt: toTimestamp(new Date()),
    revision: 1,
  } satisfies DomainEventInit<'IssueCreated'>;
}

export function statusChanged(input: { issueId: string; orgId: string; campaignId: string; severity?: string; from: string; to: string; revision: number }) {
  return {
    issueId: input.issueId,
    orgId: input.orgId,
    campaignId: input.campaignId,
    title: 'Checkout button does nothing',
    severity: input.severity,
    oldStatus: input.from,
    newStatus: input.to,
    occurredAt: toTimestamp(new Date()),
    revision: input.revision,
  } satisfies DomainEventInit<'IssueStatusChanged'>;
}
