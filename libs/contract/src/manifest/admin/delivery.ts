import type { Endpoint } from '../endpoint.ts';
import { admin } from './access.ts';
import * as shapes from './delivery-shapes.ts';

/**
 * Webhook deliveries: the log, redeliver, recover and test sends.
 * Admin API (admin-api-v1.md); request and response shapes live beside their entries (delivery-shapes.ts).
 */
export const DELIVERY_ADMIN_ENDPOINTS = {
  adminListDeliveries: admin('GET', '/admin/v1/webhooks/:id/deliveries', 'delivery', 'Admin', { request: { query: shapes.AdminDeliveryLogQuerySchema }, response: { status: 200, body: shapes.AdminDeliveryLogSchema } }),
  adminRedeliver: admin('POST', '/admin/v1/webhooks/:id/deliveries/:deliveryId/redeliver', 'delivery', 'Admin', { response: { status: 202, body: shapes.AdminQueuedDeliverySchema } }),
  adminRecoverWebhook: admin('POST', '/admin/v1/webhooks/:id/recover', 'delivery', 'Admin', { request: { body: shapes.AdminRecoverRequestSchema }, response: { status: 202, body: shapes.AdminRecoverAnswerSchema } }),
  adminTestWebhook: admin('POST', '/admin/v1/webhooks/:id/test', 'delivery', 'Admin', { request: { body: shapes.AdminTestSendRequestSchema }, response: { status: 202, body: shapes.AdminQueuedDeliverySchema } }),
} satisfies Record<string, Endpoint>;
