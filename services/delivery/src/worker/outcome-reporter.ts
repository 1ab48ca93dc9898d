import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import { OUTCOMES_PER_CALL, type WebhookClient } from '../clients/webhook-client.ts';
import { reportOutcomes, type UnreportedOutcome } from '../storage/deliveries.ts';
import type { DeliveryDatabase } from '../storage/schema.ts';
import type { DeliveryMetrics } from './metrics.ts';
import { Sleeper } from '@preflight/bus';

/** The webhook service disables an endpoint at this many consecutive failed deliveries (spec 6.5 rule 5). */
export const AUTO_DISABLE_AFTER = 5;

export interface OutcomeReporter {
  /**
   * Reports outcomes with one call (at most OUTCOMES_PER_CALL, in order) and acts on the
   * answers (metrics, logs, `onDisabled`); throws when the webhook service did not answer.
   */
  report(rows: UnreportedOutcome[]): Promise<void>;
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Reports final deliveries' outcomes (delivered or failed, never cancelled) to the webhook
 * service. The scheduler reports most of them itself, as it records them (`report`); this
 * loop reports those left unreported (the webhook service did not answer then, or a previous
 * version of the service left them), oldest first, in batches: up to OUTCOMES_PER_CALL rows are locked, reported
 * with one call (applied in order there, so a streak of failures counts as if reported one by
 * one) and marked in the same transaction, so replicas do not report one twice. Whatever
 * finished while a batch was out goes in the next one. An unreachable webhook service is
 * retried with a capped backoff until it answers; a deleted endpoint counts as done.
 * `onDisabled` hears of every endpoint an outcome left disabled (the endpoint cache drops it).
 */
export function startOutcomeReporter(opts: {
  db: Kysely<DeliveryDatabase>;
  webhooks: WebhookClient;
  metrics: DeliveryMetrics;
  logger: Logger;
  pollIntervalMs: number;
  onDisabled?: (orgId: string, endpointId: string) => void;
}): OutcomeReporter {
  const log = opts.logger.child({ component: 'outcomes' });
  const sleeper = new Sleeper();
  let stopping = false;
  let failures = 0;

  async function report(rows: UnreportedOutcome[]): Promise<void> {
    const states = await opts.webhooks.reportOutcomes(rows.map((r) => ({ endpointId: r.endpoint_id, delivered: r.status === 'delivered' })));
    rows.forEach((row, i) => {
      const state = states[i];
      const delivered = row.status === 'delivered';
      if (!state) {
        log.info({ deliveryId: row.id, endpointId: row.endpoint_id }, 'endpoint deleted before its delivery outcome was reported');
        return;
      }
      if (!state.isEnabled) opts.onDisabled?.(row.org_id, row.endpoint_id);
      if (!delivered && !state.isEnabled && state.consecutiveFailures === AUTO_DISABLE_AFTER) {
        opts.metrics.autoDisabled.inc();
        log.warn({ endpointId: row.endpoint_id, consecutiveFailures: state.consecutiveFailures }, 'endpoint disabled after consecutive failed deliveries');
      }
    });
  }

  const loop = (async () => {
    while (!stopping) {
      try {
        while (!stopping) {
          const reported = await reportOutcomes(opts.db, OUTCOMES_PER_CALL, report);
          if (reported === 0) break;
          failures = 0;
        }
      } catch (err) {
        failures += 1;
        if (!stopping) log.warn({ err: (err as Error).message, failures }, 'reporting delivery outcomes failed; will retry');
      }
      if (!stopping) await sleeper.wait(failures > 0 ? Math.min(30_000, 250 * 2 ** Math.min(failures, 7)) : opts.pollIntervalMs * 5);
    }
  })();

  return {
    report,
    wake: () => sleeper.wake(),
    async stop() {
      stopping = true;
      sleeper.wake();
      await loop;
    },
  };
}
