import type { Endpoint } from '../endpoint.ts';
import { admin } from './access.ts';
import { AdminDeliveryLogQuerySchema, AdminDeliveryLogSchema, AdminQueuedDeliverySchema, AdminRecoverAnswerSchema, AdminRecoverRequestSchema, AdminTestSendRequestSchema } from './delivery-shapes.ts';

/**
 * Webhook deliveries: the log, redeliver, recover and test sends.
 * Admin API (admin-api-v1.md); request and response shapes live beside their entries (delivery-shapes.ts).
 */
export const DELIVERY_ADMIN_ENDPOINTS = {
  adminListDeliveries: {
    ...admin('GET', '/admin/v1/webhooks/:id/deliveries', 'delivery', 'Admin'),
    request: { query: AdminDeliveryLogQuerySchema },
    response: { status: 200, body: AdminDeliveryLogSchema },
  },
  adminRedeliver: {
    ...admin('POST', '/admin/v1/webhooks/:id/deliveries/:deliveryId/redeliver', 'delivery', 'Admin'),
    response: { status: 202, body: AdminQueuedDeliverySchema },
  },
  adminRecoverWebhook: {
    ...admin('POST', '/admin/v1/webhooks/:id/recover', 'delivery', 'Admin'),
    request: { body: AdminRecoverRequestSchema },
    response: { status: 202, body: AdminRecoverAnswerSchema },
  },
  adminTestWebhook: {
    ...admin('POST', '/admin/v1/webhooks/:id/test', 'delivery', 'Admin'),
    request: { body: AdminTestSendRequestSchema },
    response: { status: 202, body: AdminQueuedDeliverySchema },
  },
} satisfies Record<string, Endpoint>;
