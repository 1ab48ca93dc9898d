import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/nats-core';
import { EVENT_TYPE_HEADER, ORG_ID_HEADER, connectNats } from '@preflight/bus';
import { decodeEvent, encodeEvent, type DomainEvent } from '@preflight/events';
import { createLogger } from '@preflight/log';
import { TEST_NATS_URL } from '@preflight/testing';

const connect = () => connectNats({ url: TEST_NATS_URL, name: 'issue-test', logger: createLogger('issue-test', { level: 'silent' }) });

/** One message as it sits in the stream, decoded. */
export interface SeenEvent {
  /** Nats-Msg-Id: the outbox row id. */
  id: string | undefined;
  subject: string;
  type: string | undefined;
  orgId: string | undefined;
  event: DomainEvent;
}

export interface EventWatch {
  seen: SeenEvent[];
  /** The events about one issue or campaign, in stream order. */
  about(id: string): SeenEvent[];
  close(): Promise<void>;
}

const subjectId = (e: DomainEvent): string => ('issueId' in e.message ? e.message.issueId : e.message.campaignId);

/**
 * Reads a subject of the stream from its start with an ordered JetStream consumer, decoding
 * every message with `decodeEvent` by its `Preflight-Event-Type` header.
 */
export async function watchEvents(stream: string, filterSubject: string): Promise<EventWatch> {
  const nc: NatsConnection = await connect();
  const js = jetstream(nc);
  const consumer = await js.consumers.get(stream, { filter_subjects: filterSubject });
  const messages = await consumer.consume();
  const seen: SeenEvent[] = [];
  const loop = (async () => {
    for await (const m of messages) {
      const type = m.headers?.get(EVENT_TYPE_HEADER) || undefined;
      seen.push({
        id: m.headers?.get('Nats-Msg-Id') || undefined,
        subject: m.subject,
        type,
        orgId: m.headers?.get(ORG_ID_HEADER) || undefined,
        event: decodeEvent(type ?? '', m.data),
      });
    }
  })();
  return {
    seen,
    about: (id) => seen.filter((s) => subjectId(s.event) === id),
    async close() {
      messages.stop();
      await loop.catch(() => undefined);
      await nc.close();
    },
  };
}

/** A test's stand-in for the campaign service's relay: publishes a domain event as it would. */
export interface EventPublisher {
  nc: NatsConnection;
  js: JetStreamClient;
  /** Publishes with `Nats-Msg-Id` = `id`; returns whether JetStream dropped it as a duplicate. */
  publish(event: DomainEvent, opts: { id: string; orgId: string }): Promise<{ duplicate: boolean }>;
  /** The same for an already encoded message (an outbox row, say). */
  publishRaw(subject: string, payload: Uint8Array, opts: { id: string; type: string; orgId: string }): Promise<{ duplicate: boolean }>;
  close(): Promise<void>;
}

export async function eventPublisher(prefix: string): Promise<EventPublisher> {
  const nc = await connect();
  const js = jetstream(nc);
  const publishRaw: EventPublisher['publishRaw'] = async (subject, payload, { id, type, orgId }) => {
    const h = headers();
    h.set(EVENT_TYPE_HEADER, type);
    h.set(ORG_ID_HEADER, orgId);
    const ack = await js.publish(subject, payload, { msgID: id, headers: h });
    return { duplicate: ack.duplicate };
  };
  return {
    nc,
    js,
    publishRaw,
    publish(event, { id, orgId }) {
      const encoded = encodeEvent(event, prefix);
      return publishRaw(encoded.subject, encoded.payload, { id, type: encoded.type, orgId });
    },
    close: () => nc.close(),
  };
}
