import type { AdminWebhook, PublicWebhook } from '@preflight/contract';
import type { WebhookRow } from '../storage/webhooks.ts';

/** Rows to the public shape of spec 2.9: every field present; never the secret. */
export function toPublicWebhook(row: WebhookRow): PublicWebhook {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    events: row.events,
    isEnabled: row.is_enabled,
    source: row.source,
    createdAt: row.created_at.toISOString(),
  };
}

/** The settings page also sees the failure streak and when the endpoint was auto-disabled. */
export function toAdminWebhook(row: WebhookRow): AdminWebhook {
  return { ...toPublicWebhook(row), consecutiveFailures: row.consecutive_failures, disabledAt: row.disabled_at?.toISOString() ?? null };
}
