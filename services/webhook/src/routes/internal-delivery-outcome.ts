import { notFound, pathId } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { AUTO_DISABLE_AFTER, recordDeliveryOutcome } from '../storage/webhooks.ts';
import type { Registration } from './context.ts';

/**
 * POST /internal/v1/webhooks/:id/delivery-outcome {delivered}: the delivery service reports
 * each delivery's final outcome (after its retries); 5 consecutive failures disable the
 * endpoint (spec 6.5 rule 5). Answers the endpoint's state after the update.
 */
export const register: Registration = (app, { db, logger }) =>
  route(app, 'internalDeliveryOutcome', async (req, _res, io) => {
    const id = pathId(req.params.id, 'webhook');
    const { delivered } = io.body;
    const row = await recordDeliveryOutcome(db, id, delivered);
    if (!row) throw notFound('webhook', id);
    if (!delivered && !row.isEnabled && row.consecutiveFailures === AUTO_DISABLE_AFTER) logger.warn({ webhookId: id, consecutiveFailures: row.consecutiveFailures }, 'webhook disabled after consecutive failures');
    io.send({ isEnabled: row.isEnabled, consecutiveFailures: row.consecutiveFailures });
  });
