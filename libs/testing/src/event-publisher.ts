import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { EVENT_TYPE_HEADER, ORG_ID_HEADER, encodeEvent, type DomainEvent } from '@preflight/events';
import { TEST_NATS_URL } from './isolation.ts';

export interface Publisher {
  /** Publishes as a producer's outbox relay would: Nats-Msg-Id = id, type and org headers. */
  publish(event: DomainEvent, opts: { id?: string; orgId: string }): Promise<string>;
  close(): Promise<void>;
}

/** Domain events onto the test's stream under `prefix`, as the services' outbox relays publish them. */
export async function eventPublisher(prefix: string, url = TEST_NATS_URL): Promise<Publisher> {
  const nc: NatsConnection = await connect({ servers: url, name: 'test-publisher' });
  const js = jetstream(nc);
  return {
    async publish(event, { id = randomUUID(), orgId }) {
      const encoded = encodeEvent(event, prefix);
      const h = natsHeaders();
      h.set(EVENT_TYPE_HEADER, encoded.type);
      h.set(ORG_ID_HEADER, orgId);
      await js.publish(encoded.subject, encoded.payload, { msgID: id, headers: h });
      return id;
    },
    close: () => nc.close(),
  };
}
