import { z } from 'zod';
import { parseBody, sendJson } from '@preflight/http';
import { AUTO_DISABLE_AFTER, recordDeliveryOutcomes, recordSuccesses } from '../storage/webhooks.ts';
import type { Registration } from './context.ts';

/** Bounds one request's work (and its transaction) whatever the caller sends. */
export const MAX_OUTCOMES_PER_CALL = 500;

const DeliveryOutcomesSchema = z.strictObject({
  outcomes: z
    .array(
      z.strictObject({
        webhookId: z.uuid({ error: 'Must be a webhook id.' }),
        delivered: z.boolean({ error: 'Must be true or false.' }),
      }),
    )
    .min(1, { error: 'At least one outcome.' })
    .max(MAX_OUTCOMES_PER_CALL, { error: `At most ${MAX_OUTCOMES_PER_CALL} outcomes.` }),
});

/**
 * POST /internal/v1/delivery-outcomes {outcomes: [{webhookId, delivered}]}: the batched form of
 * `/webhooks/:id/delivery-outcome`, so the delivery service reports many final deliveries with
 * one call and one transaction (two statements, `recordDeliveryOutcomes`; one statement when
 * all are successes, `recordSuccesses`) instead of one call and one UPDATE per delivery.
 * Outcomes are applied in the order given (a streak of failures counts the same as when
 * reported one by one); the answer lists, in the same order, the endpoint's state after each
 * one, or `null` for an unknown (deleted) endpoint.
 */
export const internalDeliveryOutcomes: Registration = (app, { db, logger }) => {
  app.post('/internal/v1/delivery-outcomes', async (req, res) => {
    const { outcomes } = parseBody(DeliveryOutcomesSchema, req.body);
    const reported = outcomes.map((o) => ({ id: o.webhookId.toLowerCase(), delivered: o.delivered }));
    // Successes alone (endpoints that keep delivering, most reports) need no locks: one statement.
    const states = reported.every((o) => o.delivered)
      ? await recordSuccesses(db, reported.map((o) => o.id))
      : await db.transaction().execute((trx) => recordDeliveryOutcomes(trx, reported));
    const results = outcomes.map((o, i) => {
      const row = states[i];
      const webhookId = o.webhookId.toLowerCase();
      if (row && !o.delivered && !row.is_enabled && row.consecutive_failures === AUTO_DISABLE_AFTER) {
        logger.warn({ webhookId, consecutiveFailures: row.consecutive_failures }, 'webhook disabled after consecutive failures');
      }
      return { webhookId, state: row ? { isEnabled: row.is_enabled, consecutiveFailures: row.consecutive_failures } : null };
    });
    sendJson(req, res, 200, { results });
  });
};
