/**
 * Signals: plain (core) NATS messages that tell other services' caches something changed.
 * Unlike domain events they are not stored, replayed or delivered to webhooks, so their
 * subjects sit outside the event stream's `<prefix>.>`: `<prefix>_signals.<owner>.<what>`.
 * A lost signal costs only staleness up to the receiver's cache TTL.
 */

/**
 * The webhook service's endpoints of an organisation changed (created, deleted, re-enabled).
 * Payload: the organisation id (UTF-8). The delivery service drops its cached endpoint list.
 */
export const endpointsChangedSubject = (prefix: string): string => `${prefix}_signals.webhook.endpoints_changed`;
