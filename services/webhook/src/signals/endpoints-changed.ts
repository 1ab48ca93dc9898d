import type { NatsConnection } from '@nats-io/nats-core';
import { connectNats, natsAuthOptions, type NatsAuthConfig } from '@preflight/bus';
import { encodeEndpointsChanged, endpointsChangedSubject, type EndpointsChanged } from '@preflight/events';
import type { Logger } from '@preflight/log';

/** Longest a request waits for NATS to take the signal (or, just after start, to connect) before answering anyway. */
const SIGNAL_TIMEOUT_MS = 500;

const within = (promise: Promise<unknown>, ms: number): Promise<unknown> => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
};

export interface EndpointChangeSignal {
  /**
   * Tells every delivery replica to drop its cached endpoints of `change.orgId` (and, with
   * `reset`, its breaker state for `change.endpointId`). Resolves once NATS has the message (or
   * after a short bound), so a caller that answers afterwards knows an event it triggers next
   * is fanned out with the change: the signal reached the server first.
   */
  changed(change: EndpointsChanged): Promise<void>;
  close(): Promise<void>;
}

/**
 * Connects in the background: the webhook service serves its API without NATS, and a signal
 * missed while it is away costs only the delivery cache's TTL (DELIVERY_ENDPOINT_CACHE_TTL_MS).
 */
export function startEndpointChangeSignal(opts: { url: string; auth?: NatsAuthConfig; subjectPrefix: string; logger: Logger }): EndpointChangeSignal {
  // A missing or wrong creds/TLS file is a configuration error: it stops the start, unlike NATS being away.
  natsAuthOptions(opts.auth);
  const subject = endpointsChangedSubject(opts.subjectPrefix);
  const log = opts.logger.child({ component: 'endpoint-signal' });
  let nc: NatsConnection | undefined;
  let closed = false;
  const connected = connectNats({ url: opts.url, name: 'webhook', logger: opts.logger, auth: opts.auth }).then(
    (conn) => {
      if (closed) return void conn.close();
      nc = conn;
    },
    (err: unknown) => log.warn({ err: (err as Error).message }, 'nats unavailable; endpoint changes reach the delivery cache by its TTL only'),
  );

  return {
    async changed(change) {
      const { orgId, endpointId } = change;
      if (!nc && !closed) await within(connected, SIGNAL_TIMEOUT_MS);
      if (!nc || nc.isClosed()) {
        log.debug({ orgId, endpointId }, 'nats not connected; endpoint change not signalled');
        return;
      }
      try {
        nc.publish(subject, encodeEndpointsChanged(change));
        await within(nc.flush(), SIGNAL_TIMEOUT_MS);
      } catch (err) {
        log.warn({ orgId, endpointId, err: (err as Error).message }, 'endpoint change not signalled');
      }
    },
    async close() {
      closed = true;
      await nc?.drain().catch(() => undefined);
    },
  };
}
