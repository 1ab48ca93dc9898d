import type { Endpoint } from './endpoint.ts';
import { TrackerHookAnswerSchema } from './admin/integration-shapes.ts';
import { CAMPAIGN_ADMIN_ENDPOINTS } from './admin/campaign.ts';
import { DELIVERY_ADMIN_ENDPOINTS } from './admin/delivery.ts';
import { GATEWAY_ADMIN_ENDPOINTS } from './admin/gateway.ts';
import { INTEGRATION_ADMIN_ENDPOINTS } from './admin/integration.ts';
import { ISSUE_ADMIN_ENDPOINTS } from './admin/issue.ts';
import { WEBHOOK_ADMIN_ENDPOINTS } from './admin/webhook.ts';

/**
 * The admin API (admin-api-v1.md), reached through the gateway with an operator token (and by
 * console members as each entry's `members` says): one file per owning service under admin/.
 */
export const ADMIN_ENDPOINTS = {
  ...GATEWAY_ADMIN_ENDPOINTS,
  ...CAMPAIGN_ADMIN_ENDPOINTS,
  ...ISSUE_ADMIN_ENDPOINTS,
  ...WEBHOOK_ADMIN_ENDPOINTS,
  ...DELIVERY_ADMIN_ENDPOINTS,
  ...INTEGRATION_ADMIN_ENDPOINTS,
};

/**
 * Inbound hooks of issue trackers: no API key (the integration service checks the provider's
 * signature over the raw body), rate-limited per connection id.
 */
export const HOOK_ENDPOINTS = {
  trackerHook: {
    method: 'POST',
    path: '/integrations/v1/hooks/:connectionId',
    auth: 'none',
    limitBy: 'connectionId',
    owner: 'integration',
    response: { status: 200, body: TrackerHookAnswerSchema },
  },
} satisfies Record<string, Endpoint>;
