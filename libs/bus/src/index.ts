export { connectNats, ensureStream, natsAuthOptions, NatsAuthConfigError, type ConnectNatsOptions, type EnsureStreamOptions, type NatsAuthConfig } from './nats.ts';
export {
  outboxMigration,
  outboxTraceparentMigration,
  enqueueEvent,
  enqueueEvents,
  enqueueDomainEvent,
  enqueueDomainEvents,
  type EventTarget,
  newEventId,
  startOutboxRelay,
  outboxChannel,
  EVENT_TYPE_HEADER,
  ORG_ID_HEADER,
  type OutboxEvent,
  type OutboxRelay,
  type OutboxRelayOptions,
} from './outbox.ts';
export { inboxMigration, startConsumer, type ConsumedEvent, type EventHandler, type BatchEventHandler, type TransactionHooks, type ConsumerOptions, type RunningConsumer } from './consumer.ts';
export { eventsConfigShape, natsAuthConfigShape, eventStreamOptions, DUPLICATE_WINDOW_MS, type EventsConfig } from './events-config.ts';
export { Sleeper } from './sleeper.ts';
export { TRACEPARENT_HEADER } from './tracing.ts';
