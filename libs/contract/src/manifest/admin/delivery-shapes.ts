import { z } from 'zod';
import { EMITTED_EVENT_TYPES } from '../../events.ts';

/**
 * Request and response bodies of the delivery service's admin entries (admin/delivery.ts;
 * admin-api-v1.md, "Webhook settings and delivery logs"). Rules that need the service's own
 * state or clock (how far back a recovery may reach) stay in the service.
 */

/** What made a delivery: the log's `trigger`. */
export const DELIVERY_TRIGGERS = ['event', 'redeliver', 'recover', 'test'] as const;
/** How an attempt ended: `refused` is a target the service will not post to, `cancelled` an endpoint gone meanwhile. */
export const ATTEMPT_OUTCOMES = ['delivered', 'failed', 'refused', 'cancelled'] as const;

/** Delivery log entries per page at most, and by default. */
export const DELIVERY_LOG_MAX_LIMIT = 200;
export const DELIVERY_LOG_DEFAULT_LIMIT = 50;

/** `GET /admin/v1/webhooks/:id/deliveries?limit=`. */
export const AdminDeliveryLogQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^\d+$/, 'limit must be a whole number.')
    .transform(Number)
    .pipe(z.number().min(1, 'limit must be at least 1.').max(DELIVERY_LOG_MAX_LIMIT, `limit must be at most ${DELIVERY_LOG_MAX_LIMIT}.`))
    .default(DELIVERY_LOG_DEFAULT_LIMIT),
});

/** One attempt of the log: `deliveryId` is the X-Service-Delivery its request carried. */
export const AdminDeliveryLogEntrySchema = z.object({
  deliveryId: z.uuid(),
  eventId: z.string(),
  eventType: z.string(),
  attempt: z.number().int(),
  attemptedAt: z.iso.datetime({ offset: true }),
  statusCode: z.number().int().nullable(),
  durationMs: z.number().int(),
  /** At most the first 2 KB of the receiver's answer. */
  responseBody: z.string().nullable(),
  error: z.string().nullable(),
  outcome: z.enum(ATTEMPT_OUTCOMES),
  trigger: z.enum(DELIVERY_TRIGGERS),
});
/** The log, newest first. */
export const AdminDeliveryLogSchema = z.array(AdminDeliveryLogEntrySchema);

/** A delivery queued by redeliver or a test send (202): `deliveryId` is its first attempt's X-Service-Delivery. */
export const AdminQueuedDeliverySchema = z.object({ eventId: z.string(), deliveryId: z.uuid() });

/** `POST /admin/v1/webhooks/:id/recover`; the service bounds `since` (not in the future, at most 30 days back). */
export const AdminRecoverRequestSchema = z.object({
  since: z.iso.datetime({ offset: true, error: 'since must be a date-time, e.g. 2026-01-31T12:00:00Z.' }),
});
/** Deliveries made by a recovery (202). */
export const AdminRecoverAnswerSchema = z.object({ count: z.number().int().nonnegative() });

/** `POST /admin/v1/webhooks/:id/test`. */
export const AdminTestSendRequestSchema = z.object({
  eventType: z.enum(EMITTED_EVENT_TYPES, { error: `eventType must be an emitted event: ${EMITTED_EVENT_TYPES.join(', ')}.` }),
});
