import { z } from 'zod';
import { breakerConfigShape } from '@preflight/breakers';
import { eventsConfigShape } from '@preflight/bus';
import { env, loadConfig } from '@preflight/config';
import { databaseConfigShape, listenConfigShape, logConfigShape } from '@preflight/service-kit';

/** Waits between attempts, comma-separated milliseconds: "1000,5000" = 3 attempts in all. */
const retrySchedule = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      const parts = value.split(',').map((p) => p.trim()).filter((p) => p !== '');
      const waits = parts.map(Number);
      if (waits.some((w) => !Number.isInteger(w) || w < 0 || w > 86_400_000)) {
        ctx.addIssue({ code: 'custom', message: 'must be comma-separated whole milliseconds (0 to 86400000), e.g. 1000,5000' });
        return z.NEVER;
      }
      return waits;
    });

/** Environment of the delivery service, read once at start (docs/development-reference.md, "Ports, URLs"). */
export const deliveryConfigShape = {
  // HTTP (health, metrics, the admin delivery log)
  DELIVERY_PORT: env.port(8084),

  // Database: the service owns one schema (deliveries, attempts, inbox) and nothing else.
  ...databaseConfigShape('delivery', { poolMin: 2 }),

  // Domain events: every event under the prefix is fanned out by the durable consumer
  // `delivery-fanout` (same stream settings as every other service).
  ...eventsConfigShape,

  // The webhook service's internal API: endpoints (with secrets) and delivery outcomes.
  WEBHOOK_URL: env.url(['http', 'https'], 'http://127.0.0.1:8083'),
  // How long an organisation's endpoint list (URLs, secrets, filters) is reused for the fan-out
  // and for attempts: a deleted, disabled or new endpoint takes effect within this (0: ask every time).
  DELIVERY_ENDPOINT_CACHE_TTL_MS: env.int(2_000, { min: 0, max: 60_000 }),
  // A delivery whose endpoint's secret the webhook service cannot open (its at-rest key is
  // missing) waits, no attempt used, and is looked at again after this (docs/webhooks.md).
  DELIVERY_KEY_HOLD_MS: env.int(10_000, { min: 100, max: 600_000 }),

  // Delivery semantics (public-api-v1.md 6.5): the whole attempt is bounded by the timeout;
  // the schedule lists the waits between attempts (attempts = waits + 1).
  DELIVERY_ATTEMPT_TIMEOUT_MS: env.int(10_000, { min: 100, max: 120_000 }),
  DELIVERY_RETRY_SCHEDULE_MS: retrySchedule('1000,5000'),
  // Attempts in flight at once: per endpoint (per replica) and in all (per replica).
  DELIVERY_MAX_CONCURRENCY_PER_ENDPOINT: env.int(4, { min: 1, max: 1000 }),
  DELIVERY_WORKERS: env.int(64, { min: 1, max: 10_000 }),
  // How long the fan-out gathers events whose first attempts are over into one transaction
  // (their attempts, inbox rows and what is left to do, one commit, one outcome report). The
  // attempts do not wait for it: only the delivery log and the ack trail by this much.
  DELIVERY_FANOUT_GATHER_MS: env.int(25, { min: 0, max: 1_000 }),
  // New deliveries held in memory before their rows are stored (started early, or waiting for
  // room at their endpoint), per replica: an event that would go beyond is stored first and
  // claimed. Bounds the fan-out's memory whatever the endpoint count and the stream's backlog.
  DELIVERY_MAX_UNSTORED: env.int(4_000, { min: 0, max: 100_000 }),
  // Safety poll of the scheduler besides NOTIFY and its own timers.
  DELIVERY_POLL_INTERVAL_MS: env.int(1_000, { min: 10, max: 60_000 }),

  // Per-endpoint circuit breaker (opossum): opens when more than ERROR_PERCENT of at least
  // VOLUME_THRESHOLD attempts in the rolling window got no HTTP answer (a timeout, a connection
  // error); half-opens after RESET_MS and lets one attempt through. Attempts due while it is
  // open fail at once without a request.
  ...breakerConfigShape('DELIVERY'),

  // The delivery log (attempts, and the envelopes kept for redeliveries) is kept this many days; 0 keeps
  // it forever. Each replica sweeps every SWEEP_MS (the first time after a random part of it).
  DELIVERY_LOG_RETENTION_DAYS: env.int(30, { min: 0, max: 3_650 }),
  DELIVERY_LOG_RETENTION_SWEEP_MS: env.int(600_000, { min: 1_000, max: 86_400_000 }),

  // Lifts the public-address rule on targets: local development and tests only.
  WEBHOOK_ALLOW_PRIVATE_TARGETS: env.bool(false),

  ...logConfigShape,
  ...listenConfigShape,
};

export type DeliveryConfig = ReturnType<typeof loadDeliveryConfig>;

export function loadDeliveryConfig(source: Record<string, string | undefined> = process.env, exitOnError = true) {
  return loadConfig(deliveryConfigShape, { source, exitOnError });
}
