import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import type { WebhookClient } from '../clients/webhook-client.ts';
import { reportNextOutcome } from '../storage/deliveries.ts';
import type { DeliveryDatabase } from '../storage/schema.ts';
import type { DeliveryMetrics } from './metrics.ts';
import { Sleeper } from '@preflight/bus';

/** The webhook service disables an endpoint at this many consecutive failed deliveries (spec 6.5 rule 5). */
export const AUTO_DISABLE_AFTER = 5;

export interface OutcomeReporter {
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Reports each final delivery's outcome (delivered or failed, never cancelled) to the webhook
 * service once, oldest first: the call is made while the row is locked and the row is marked
 * in the same transaction, so replicas do not report one twice. An unreachable webhook service
 * is retried with a capped backoff until it answers; a 404 (endpoint deleted) counts as done.
 */
export function startOutcomeReporter(opts: { db: Kysely<DeliveryDatabase>; webhooks: WebhookClient; metrics: DeliveryMetrics; logger: Logger; pollIntervalMs: number }): OutcomeReporter {
  const log = opts.logger.child({ component: 'outcomes' });
  const sleeper = new Sleeper();
  let stopping = false;
  let failures = 0;

  const loop = (async () => {
    while (!stopping) {
      try {
        while (!stopping) {
          const reported = await reportNextOutcome(opts.db, async (row) => {
            const delivered = row.status === 'delivered';
            const state = await opts.webhooks.reportOutcome(row.endpoint_id, delivered);
            if (!state) {
              log.info({ deliveryId: row.id, endpointId: row.endpoint_id }, 'endpoint deleted before its delivery outcome was reported');
              return;
            }
            if (!delivered && !state.isEnabled && state.consecutiveFailures === AUTO_DISABLE_AFTER) {
              opts.metrics.autoDisabled.inc();
              log.warn({ endpointId: row.endpoint_id, consecutiveFailures: state.consecutiveFailures }, 'endpoint disabled after consecutive failed deliveries');
            }
          });
          if (!reported) break;
          failures = 0;
        }
      } catch (err) {
        failures += 1;
        if (!stopping) log.warn({ err: (err as Error).message, failures }, 'reporting a delivery outcome failed; will retry');
      }
      if (!stopping) await sleeper.wait(failures > 0 ? Math.min(30_000, 250 * 2 ** Math.min(failures, 7)) : opts.pollIntervalMs * 5);
    }
  })();

  return {
    wake: () => sleeper.wake(),
    async stop() {
      stopping = true;
      sleeper.wake();
      await loop;
    },
  };
}
