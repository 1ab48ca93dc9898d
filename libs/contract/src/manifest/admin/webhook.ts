import type { Endpoint } from '../endpoint.ts';
import { admin } from './access.ts';

/**
 * Webhook settings: create, list, enable, rotate the secret.
 * Admin API (admin-api-v1.md); request and response shapes live beside their entries.
 */
export const WEBHOOK_ADMIN_ENDPOINTS = {
  adminCreateWebhook: admin('POST', '/admin/v1/organizations/:orgId/webhooks', 'webhook', 'Admin'),
  adminListWebhooks: admin('GET', '/admin/v1/organizations/:orgId/webhooks', 'webhook', 'Admin'),
  adminEnableWebhook: admin('POST', '/admin/v1/webhooks/:id/enable', 'webhook', 'Admin'),
  adminRotateWebhookSecret: admin('POST', '/admin/v1/webhooks/:id/secret/rotate', 'webhook', 'Admin'),
} satisfies Record<string, Endpoint>;
