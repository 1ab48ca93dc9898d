import { route } from '@preflight/service-kit';
import { AUTO_DISABLE_AFTER, recordDeliveryOutcomes, recordSuccesses, type EndpointState } from '../storage/webhooks.ts';
import type { Registration } from './context.ts';

/**
 * POST /internal/v1/delivery-outcomes {outcomes: [{webhookId, delivered}]}: the batched form of
 * `/webhooks/:id/delivery-outcome`, so the delivery service reports many final deliveries with
 * one call: one statement for the endpoints with successes alone (`recordSuccesses`), one
 * transaction for those with a failure (`recordDeliveryOutcomes`), instead of one call and one
 * UPDATE per delivery (at most MAX_DELIVERY_OUTCOMES_PER_CALL outcomes, libs/contract).
 * Outcomes are applied in the order given (a streak of failures counts the same as when
 * reported one by one); the answer lists, in the same order, the endpoint's state after each
 * one, or `null` for an unknown (deleted) endpoint.
 */
export const register: Registration = (app, { db, logger }) =>
  route(app, 'internalDeliveryOutcomes', async (_req, _res, io) => {
    const { outcomes } = io.body;
    const reported = outcomes.map((o) => ({ id: o.webhookId.toLowerCase(), delivered: o.delivered }));
    // Endpoints with successes alone (those that keep delivering, most of any report) need no
    // locks: one statement. Only those with a failure are locked and counted in order, so a
    // failing endpoint's reports do not lock its healthy neighbours' rows too. Each endpoint's
    // outcomes go one way, so their order per endpoint is kept.
    const failing = new Set(reported.filter((o) => !o.delivered).map((o) => o.id));
    const healthy = reported.filter((o) => !failing.has(o.id));
    const counted = reported.filter((o) => failing.has(o.id));
    const [healthyStates, countedStates] = await Promise.all([
      recordSuccesses(db, healthy.map((o) => o.id)),
      counted.length > 0 ? db.transaction().execute((trx) => recordDeliveryOutcomes(trx, counted)) : [],
    ]);
    const byOutcome = new Map<(typeof reported)[number], EndpointState | undefined>();
    healthy.forEach((o, i) => byOutcome.set(o, healthyStates[i]));
    counted.forEach((o, i) => byOutcome.set(o, countedStates[i]));
    const states = reported.map((o) => byOutcome.get(o));
    const results = outcomes.map((o, i) => {
      const row = states[i];
      const webhookId = o.webhookId.toLowerCase();
      if (row && !o.delivered && !row.isEnabled && row.consecutiveFailures === AUTO_DISABLE_AFTER) {
        logger.warn({ webhookId, consecutiveFailures: row.consecutiveFailures }, 'webhook disabled after consecutive failures');
      }
      return { webhookId, state: row ? { isEnabled: row.isEnabled, consecutiveFailures: row.consecutiveFailures } : null };
    });
    io.send({ results });
  });
