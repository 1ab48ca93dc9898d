import { z } from 'zod';
import { CreateWebhookRequestSchema } from '../../requests.ts';
import { CreateWebhookResponseSchema } from '../../resources.ts';
import type { Endpoint } from '../endpoint.ts';
import { admin } from './access.ts';
import { AdminRotatedWebhookSecretSchema, AdminRotateWebhookSecretRequestSchema, AdminWebhookSchema, AdminWebhookWithStatsSchema } from './webhook-shapes.ts';

/**
 * Webhook settings: create, list, enable, rotate the secret.
 * Admin API (admin-api-v1.md); the request and response shapes are in webhook-shapes.ts. The
 * create takes and answers the public create's shapes (source `dashboard`).
 */
export const WEBHOOK_ADMIN_ENDPOINTS = {
  adminCreateWebhook: admin('POST', '/admin/v1/organizations/:orgId/webhooks', 'webhook', 'Admin', { request: { body: CreateWebhookRequestSchema }, response: { status: 201, body: CreateWebhookResponseSchema } }),
  adminListWebhooks: admin('GET', '/admin/v1/organizations/:orgId/webhooks', 'webhook', 'Admin', { response: { status: 200, body: z.array(AdminWebhookWithStatsSchema) } }),
  adminEnableWebhook: admin('POST', '/admin/v1/webhooks/:id/enable', 'webhook', 'Admin', { response: { status: 200, body: AdminWebhookSchema } }),
  adminRotateWebhookSecret: admin('POST', '/admin/v1/webhooks/:id/secret/rotate', 'webhook', 'Admin', { request: { body: AdminRotateWebhookSecretRequestSchema }, response: { status: 200, body: AdminRotatedWebhookSecretSchema } }),
} satisfies Record<string, Endpoint>;
