import { z } from 'zod';
import { notFound, parseBody, pathId, sendJson } from '@preflight/http';
import { AUTO_DISABLE_AFTER, recordDeliveryOutcome } from '../storage/webhooks.ts';
import type { Registration } from './context.ts';

const DeliveryOutcomeSchema = z.strictObject({
  delivered: z.boolean({ error: 'Must be true or false.' }),
});

/**
 * POST /internal/v1/webhooks/:id/delivery-outcome {delivered}: the delivery service reports
 * each delivery's final outcome (after its retries); 5 consecutive failures disable the
 * endpoint (spec 6.5 rule 5). Answers the endpoint's state after the update.
 */
export const register: Registration = (app, { db, logger }) => {
  app.post('/internal/v1/webhooks/:id/delivery-outcome', async (req, res) => {
    const id = pathId(req.params.id, 'webhook');
    const { delivered } = parseBody(DeliveryOutcomeSchema, req.body);
    const row = await recordDeliveryOutcome(db, id, delivered);
    if (!row) throw notFound('webhook', id);
    if (!delivered && !row.is_enabled && row.consecutive_failures === AUTO_DISABLE_AFTER) logger.warn({ webhookId: id, consecutiveFailures: row.consecutive_failures }, 'webhook disabled after consecutive failures');
    sendJson(req, res, 200, { isEnabled: row.is_enabled, consecutiveFailures: row.consecutive_failures });
  });
};
