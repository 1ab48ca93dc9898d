import { adminOrgId } from '@preflight/http';
import type { Logger } from '@preflight/log';
import { route } from '@preflight/service-kit';
import type { EndpointStats } from '@preflight/contract';
import type { DeliveryClient } from '../clients/delivery-client.ts';
import { toAdminWebhook } from '../views/webhook-view.ts';
import { listWebhooks } from '../storage/webhooks.ts';
import type { Registration } from './context.ts';

/**
 * The delivery service's stats for these endpoints, or undefined when it cannot give them:
 * the settings page then still lists the endpoints (with `stats: null`), since their settings
 * live here and matter more than the numbers.
 */
async function statsOrNothing(delivery: DeliveryClient, ids: string[], logger: Logger, orgId: string): Promise<Map<string, EndpointStats> | undefined> {
  if (ids.length === 0) return new Map();
  try {
    return await delivery.endpointStats(ids);
  } catch (err) {
    logger.warn({ orgId, endpoints: ids.length, err: (err as Error).message }, 'endpoint stats unavailable; admin list answered without them');
    return undefined;
  }
}

/** GET /admin/v1/organizations/:orgId/webhooks: the public shape plus consecutiveFailures, disabledAt and stats. */
export const register: Registration = (app, { db, delivery, logger }) =>
  route(app, 'adminListWebhooks', async (req, _res, io) => {
    const orgId = adminOrgId(req);
    const rows = await listWebhooks(db, orgId);
    const stats = await statsOrNothing(delivery, rows.map((r) => r.id), logger, orgId);
    io.send(rows.map((row) => ({ ...toAdminWebhook(row), stats: stats?.get(row.id) ?? null })));
  });
