import type { Endpoint } from '../endpoint.ts';
import { admin } from './access.ts';

/**
 * Webhook deliveries: the log, redeliver, recover and test sends.
 * Admin API (admin-api-v1.md); request and response shapes live beside their entries.
 */
export const DELIVERY_ADMIN_ENDPOINTS = {
  adminListDeliveries: admin('GET', '/admin/v1/webhooks/:id/deliveries', 'delivery', 'Admin'),
  adminRedeliver: admin('POST', '/admin/v1/webhooks/:id/deliveries/:deliveryId/redeliver', 'delivery', 'Admin'),
  adminRecoverWebhook: admin('POST', '/admin/v1/webhooks/:id/recover', 'delivery', 'Admin'),
  adminTestWebhook: admin('POST', '/admin/v1/webhooks/:id/test', 'delivery', 'Admin'),
} satisfies Record<string, Endpoint>;
