import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { DELIVERY_TRIGGERS } from '@preflight/contract';
import type { Kysely } from '@preflight/db';
import { backlog } from '../storage/deliveries.ts';
import type { DeliveryDatabase } from '../storage/schema.ts';

/** A delivery due this long ago and not attempted yet counts as late. */
export const LATE_AFTER_MS = 5_000;

export interface DeliveryMetrics {
  deliveries: Counter<'event_type' | 'outcome'>;
  attempts: Counter<'event_type' | 'outcome'>;
  attemptDuration: Histogram<string>;
  autoDisabled: Counter<string>;
  heldForKey: Counter<'trigger'>;
}

/** The delivery metrics (names are what the alert rules use). */
export function deliveryMetrics(registry: Registry, db: Kysely<DeliveryDatabase>): DeliveryMetrics {
  // The backlog gauges are read from the database at each scrape: every replica reports the
  // same (global) numbers, so alerts take max() over replicas.
  let cached: Promise<{ pending: number; late: number }> | undefined;
  const read = () => {
    cached ??= backlog(db, LATE_AFTER_MS)
      .catch(() => ({ pending: Number.NaN, late: Number.NaN }))
      .finally(() => setTimeout(() => (cached = undefined), 0));
    return cached;
  };
  new Gauge({
    name: 'webhook_deliveries_pending',
    help: 'Deliveries not final yet (waiting for an attempt, a retry or in flight).',
    registers: [registry],
    async collect() {
      this.set((await read()).pending);
    },
  });
  new Gauge({
    name: 'webhook_deliveries_due_late',
    help: `Pending deliveries due more than ${LATE_AFTER_MS / 1000} s ago and not attempted yet.`,
    registers: [registry],
    async collect() {
      this.set((await read()).late);
    },
  });
  return {
    deliveries: new Counter({ name: 'webhook_deliveries_total', help: 'Deliveries that became final, by public event type and outcome (delivered, failed, cancelled).', labelNames: ['event_type', 'outcome'], registers: [registry] }),
    attempts: new Counter({ name: 'webhook_delivery_attempts_total', help: 'Delivery attempts, by public event type and outcome (delivered, failed, refused, cancelled).', labelNames: ['event_type', 'outcome'], registers: [registry] }),
    attemptDuration: new Histogram({
      name: 'webhook_delivery_attempt_duration_seconds',
      help: 'Duration of delivery attempts (resolve, connect, request and response body).',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
      registers: [registry],
    }),
    autoDisabled: new Counter({ name: 'webhook_endpoints_auto_disabled_total', help: 'Endpoints the webhook service disabled after consecutive failed deliveries, as reported to this service.', registers: [registry] }),
    heldForKey: heldForKeyCounter(registry),
  };
}

/**
 * Deliveries this replica holds in memory before their rows are stored: its events' first
 * attempts (running, or over and waiting for their event's transaction) and the deliveries
 * waiting for room at a busy endpoint. Per replica (sum over pods); the database gauges above
 * do not see them, and the events behind them are unacked in JetStream (num_ack_pending).
 */
export function unstoredGauge(registry: Registry, count: () => number): void {
  new Gauge({
    name: 'webhook_deliveries_unstored',
    help: 'New deliveries this replica holds before their rows are stored (attempts started early, deliveries waiting for room at their endpoint).',
    registers: [registry],
    collect() {
      this.set(count());
    },
  });
}

/**
 * Endpoints this replica holds as stalled: at their in-flight bound with no request answered
 * for a second (they hang, or answer in seconds; a timeout is no answer). Their due deliveries
 * are moved ahead instead of being claimed. Per replica (max over pods).
 */
export function stalledGauge(registry: Registry, count: () => number): void {
  new Gauge({
    name: 'delivery_endpoints_stalled',
    help: 'Endpoints this replica holds as stalled (at their bound, no request answered for a second); their due deliveries are moved ahead.',
    registers: [registry],
    collect() {
      this.set(count());
    },
  });
}

/** Present from the start (0 per trigger), so the alert and the running-system check see it before any hold. */
function heldForKeyCounter(registry: Registry): Counter<'trigger'> {
  const counter = new Counter({
    name: 'webhook_deliveries_held_for_key_total',
    help: "Times a due delivery was put back without an attempt because the webhook service cannot open its endpoint's secret (an at-rest key is missing), by trigger.",
    labelNames: ['trigger'],
    registers: [registry],
  });
  for (const trigger of DELIVERY_TRIGGERS) counter.inc({ trigger }, 0);
  return counter;
}
