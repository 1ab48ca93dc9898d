import { z } from 'zod';
import { EndpointStatsSchema } from '../../internal.ts';
import { PublicWebhookSchema } from '../../resources.ts';

/** Request and response shapes of the webhook service's admin entries (admin/webhook.ts; admin-api-v1.md, "Webhook settings"). */

const dateTime = z.iso.datetime({ offset: true });

export const ADMIN_DEFAULT_GRACE_HOURS = 24;
export const ADMIN_MAX_GRACE_HOURS = 72;
const GRACE_ERROR = { error: `graceHours must be a whole number of hours from 0 to ${ADMIN_MAX_GRACE_HOURS}.` };

/** `{graceHours?}`: how long the replaced secret keeps signing beside the new one (0: not at all). */
export const AdminRotateWebhookSecretRequestSchema = z.strictObject({
  graceHours: z.number(GRACE_ERROR).int(GRACE_ERROR).min(0, GRACE_ERROR).max(ADMIN_MAX_GRACE_HOURS, GRACE_ERROR).default(ADMIN_DEFAULT_GRACE_HOURS),
});

/** The new secret, shown only in this answer, and when the one it replaced stops signing. */
export const AdminRotatedWebhookSecretSchema = z.object({ secret: z.string(), previousSecretExpiresAt: dateTime });

/** The settings page also sees the failure streak and when the endpoint was auto-disabled. */
export const AdminWebhookSchema = PublicWebhookSchema.extend({ consecutiveFailures: z.number().int(), disabledAt: dateTime.nullable() });

/** The admin list's item: the delivery service's numbers for the endpoint, null when it could not give them. */
export const AdminWebhookWithStatsSchema = AdminWebhookSchema.extend({ stats: EndpointStatsSchema.nullable() });

export type AdminWebhook = z.infer<typeof AdminWebhookSchema>;
export type AdminWebhookWithStats = z.infer<typeof AdminWebhookWithStatsSchema>;
