import type { ResponseOf } from '@preflight/contract';
import type { LoggedAttempt } from '../storage/deliveries.ts';

type DeliveryLogEntry = ResponseOf<'adminListDeliveries'>[number];

/** One attempt as the delivery log shows it (admin-api-v1.md, "Webhook settings and delivery logs"). */
export const toDeliveryLogEntry = (r: LoggedAttempt): DeliveryLogEntry => ({
  // The attempt's own id: the X-Service-Delivery its request carried.
  deliveryId: r.attempt_id,
  eventId: r.event_id,
  eventType: r.event_type,
  attempt: r.attempt,
  attemptedAt: new Date(r.attempted_at).toISOString(),
  statusCode: r.status_code,
  durationMs: r.duration_ms,
  responseBody: r.response_body,
  error: r.error,
  outcome: r.outcome,
  trigger: r.trigger,
});
