import type { AdminWebhook, PublicWebhook } from '@preflight/contract';
import type { WebhookRow } from '../storage/webhooks.ts';

/** Rows to the public shape of spec 2.9: every field present; never the secret. */
export function toPublicWebhook(row: WebhookRow): PublicWebhook {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    events: row.events,
    isEnabled: row.isEnabled,
    source: row.source,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The settings page also sees the failure streak and when the endpoint was auto-disabled. */
export function toAdminWebhook(row: WebhookRow): AdminWebhook {
  return { ...toPublicWebhook(row), consecutiveFailures: row.consecutiveFailures, disabledAt: row.disabledAt?.toISOString() ?? null };
}
