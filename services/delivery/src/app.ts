import { startConsumer } from '@preflight/bus';
import { listenFor } from '@preflight/db';
import { allSubjects, decodeEndpointsChanged, endpointsChangedSubject } from '@preflight/events';
import type { Logger } from '@preflight/log';
import { consumerBase, migrateService, runService, type RunOptions, type RunningService, type ServiceSpec } from '@preflight/service-kit';
import type { Resolver } from './attempt/target.ts';
import { EndpointDirectory } from './clients/endpoint-directory.ts';
import { createWebhookClient } from './clients/webhook-client.ts';
import type { DeliveryConfig } from './config.ts';
import { newAttemptId } from './domain/ids.ts';
import { maxAttempts } from './domain/schedule.ts';
import { cancelWaiting } from './storage/waiting-deliveries.ts';
import { FANOUT_CONSUMER, deliveryChannel, fanout } from './fanout/fanout.ts';
import { migrations } from './migrations/index.ts';
import { registrations } from './routes/index.ts';
import type { DeliveryDatabase } from './storage/schema.ts';
import { Breakers, breakerThresholds } from '@preflight/breakers';
import { startLogRetention } from './worker/log-retention.ts';
import { deliveryMetrics, stalledGauge, unstoredGauge } from './worker/metrics.ts';
import { startOutcomeReporter } from './worker/outcome-reporter.ts';
import { schedulerLeaseMs, startScheduler } from './worker/scheduler.ts';

export type RunningDeliveryService = RunningService<DeliveryDatabase, object>;

/**
 * The delivery service: the fan-out consumer, the scheduler with its breakers and LISTEN
 * connection, the outcome reporter, the log retention and the routes. `resolveHost` replaces
 * the system resolver for target host names (tests). Shutdown stops taking events in, then
 * lets attempts in flight finish and be recorded, before the connections close.
 */
export function deliveryService(resolveHost?: Resolver): ServiceSpec<DeliveryDatabase, DeliveryConfig> {
  return {
    name: 'delivery',
    migrations,
    port: (config) => config.DELIVERY_PORT,
    // The webhook service asks for the admin list's per-endpoint stats.
    peers: ['webhook'],
    events: true,
    async wire(resources) {
      const { config, logger, database, registry, nats, tokens } = resources;
      const { conn } = nats!;
      const webhooks = createWebhookClient(config.WEBHOOK_URL, tokens);
      const endpoints = new EndpointDirectory(webhooks, config.DELIVERY_ENDPOINT_CACHE_TTL_MS);
      const metrics = deliveryMetrics(registry, database.db);
      const breakers = new Breakers(
        {
          metricPrefix: 'delivery',
          subject: 'endpoint',
          whileOpen: 'attempts due meanwhile fail without a request',
          ...breakerThresholds(config, 'DELIVERY'),
        },
        logger,
        registry,
      );
      // The webhook service signals endpoint changes so the cache does not wait out its TTL.
      conn.subscribe(endpointsChangedSubject(config.EVENTS_SUBJECT_PREFIX), {
        callback: (err, msg) => {
          const change = err ? undefined : decodeEndpointsChanged(msg.string());
          if (!change) return;
          endpoints.invalidate(change.orgId);
          if (change.reset && change.endpointId) breakers.reset(change.endpointId);
        },
      });
      // Once per endpoint and minute: every failure reported after the disable says so again.
      const disabled = onceEvery(60_000, (endpointId: string) => {
        void cancelWaiting(database.db, endpointId, newAttemptId)
          .then((n) => n > 0 && logger.info({ endpointId, cancelled: n }, 'deliveries of a disabled endpoint cancelled'))
          .catch((err: unknown) => logger.warn({ endpointId, err: (err as Error).message }, 'could not cancel a disabled endpoint\'s deliveries; each is cancelled at its attempt'));
      });
      const outcomes = startOutcomeReporter({
        db: database.db,
        webhooks,
        metrics,
        logger,
        pollIntervalMs: config.DELIVERY_POLL_INTERVAL_MS,
        onDisabled: (orgId, endpointId) => {
          endpoints.forget(orgId, endpointId);
          disabled.seen(endpointId);
        },
      });
      const retention = startLogRetention({ db: database.db, registry, logger, retentionDays: config.DELIVERY_LOG_RETENTION_DAYS, everyMs: config.DELIVERY_LOG_RETENTION_SWEEP_MS });
      const work = startScheduler({
        db: database.db,
        channel: deliveryChannel(database.schema),
        endpoints,
        webhooks,
        breakers,
        metrics,
        logger,
        attemptTimeoutMs: config.DELIVERY_ATTEMPT_TIMEOUT_MS,
        retrySchedule: config.DELIVERY_RETRY_SCHEDULE_MS,
        keyHoldMs: config.DELIVERY_KEY_HOLD_MS,
        maxPerEndpoint: config.DELIVERY_MAX_CONCURRENCY_PER_ENDPOINT,
        workers: config.DELIVERY_WORKERS,
        pollIntervalMs: config.DELIVERY_POLL_INTERVAL_MS,
        allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
        ...(resolveHost ? { resolve: resolveHost } : {}),
        reportOutcomes: (finals) => outcomes.report(finals),
        onUnreported: () => outcomes.wake(),
      });
      const listener = listenFor({ pool: database.pool, channel: deliveryChannel(database.schema), onNotify: () => work.wake(), logger: logger.child({ component: 'scheduler' }), what: 'delivery' });

      const fan = fanout({
        subjectPrefix: config.EVENTS_SUBJECT_PREFIX,
        schema: database.schema,
        endpoints,
        handoff: work,
        leaseMs: schedulerLeaseMs(config.DELIVERY_ATTEMPT_TIMEOUT_MS),
        maxUnstored: config.DELIVERY_MAX_UNSTORED,
        logger,
      });
      unstoredGauge(registry, fan.unstored);
      stalledGauge(registry, () => work.stalled());
      const consumer = await startConsumer({
        ...consumerBase(resources),
        durable: FANOUT_CONSUMER,
        // Every domain event, in one subject: NATS before 2.10 allows one filter per consumer.
        filterSubjects: [allSubjects(config.EVENTS_SUBJECT_PREFIX)],
        concurrency: 4,
        // Transactions of many events (one inbox insert, one statement for their attempts and
        // deliveries, one commit, one outcome report for all of them) under a steady flow;
        // attempts do not wait for them (onReceived starts them).
        gatherMs: config.DELIVERY_FANOUT_GATHER_MS,
        wants: fan.wants,
        batchHandler: fan.handler,
        onReceived: fan.onReceived,
        onSettled: fan.onSettled,
      });
      const ctx = { db: database.db, logger, webhooks, channel: deliveryChannel(database.schema), lastAttempt: maxAttempts(config.DELIVERY_RETRY_SCHEDULE_MS) };
      return {
        mount: (app) => {
          for (const register of registrations) register(app, ctx);
        },
        releases: [
          () => consumer.stop(),
          () => listener.close(),
          () => work.stop(),
          () => outcomes.stop(),
          () => retention.stop(),
          async () => breakers.shutdown(),
          () => webhooks.close(),
        ],
      };
    },
  };
}

export const startDeliveryService = (opts: RunOptions<DeliveryConfig> & { resolveHost?: Resolver }): Promise<RunningDeliveryService> =>
  runService(deliveryService(opts.resolveHost), opts);

/** `main.ts migrate`: brings the schema up to date and returns. */
export const migrateDeliverySchema = (config: DeliveryConfig, logger: Logger): Promise<void> => migrateService(deliveryService(), config, logger);

/** Calls `act` for a key at most once per `ms` (a bounded map: keys are forgotten after `ms`). */
function onceEvery(ms: number, act: (key: string) => void): { seen(key: string): void } {
  const last = new Map<string, number>();
  return {
    seen(key) {
      const now = Date.now();
      if (now - (last.get(key) ?? -Infinity) < ms) return;
      for (const [k, at] of last) if (now - at >= ms) last.delete(k);
      last.set(key, now);
      act(key);
    },
  };
}
