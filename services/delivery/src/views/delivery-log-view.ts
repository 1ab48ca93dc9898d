import type { ResponseOf } from '@preflight/contract';
import type { LoggedAttempt } from '../storage/deliveries.ts';

type DeliveryLogEntry = ResponseOf<'adminListDeliveries'>[number];

/** One attempt as the delivery log shows it (admin-api-v1.md, "Webhook settings and delivery logs"). */
export const toDeliveryLogEntry = (r: LoggedAttempt): DeliveryLogEntry => ({
  // The attempt's own id: the X-Service-Delivery its request carried.
  deliveryId: r.attemptId,
  eventId: r.eventId,
  eventType: r.eventType,
  attempt: r.attempt,
  attemptedAt: new Date(r.attemptedAt).toISOString(),
  statusCode: r.statusCode,
  durationMs: r.durationMs,
  responseBody: r.responseBody,
  error: r.error,
  outcome: r.outcome,
  trigger: r.trigger,
});
