import type { EventsConfig } from '@preflight/bus';
import type { Resources } from './run-service.ts';

/**
 * What a service's durable consumer takes from the kit, the same in every service: the NATS
 * clients, the events stream, the database holding its inbox, the logger and the registry.
 * The service spreads it into `startConsumer` and adds its durable name, filter and handler.
 */
export function consumerBase<DB>({ config, logger, database, registry, nats }: Resources<DB, EventsConfig>) {
  if (!nats) throw new Error('a consumer needs the spec to set events: true');
  return { js: nats.js, jsm: nats.jsm, stream: config.EVENTS_STREAM, db: database.db, schema: database.schema, logger, registry };
}
