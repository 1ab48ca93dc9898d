import { runService, migrateService, type RunOptions, type RunningService, type ServiceSpec } from '@preflight/service-kit';
import type { Logger } from '@preflight/log';
import { createDeliveryClient } from './clients/delivery-client.ts';
import type { WebhookConfig } from './config.ts';
import { migrations } from './migrations/index.ts';
import { registrations } from './routes/index.ts';
import { startRingHealth } from './secrets/ring-health.ts';
import { startEndpointChangeSignal } from './signals/endpoints-changed.ts';
import type { WebhookDatabase } from './storage/schema.ts';
import { createTargetChecker, type HostResolver } from '@preflight/net';

export type RunningWebhookService = RunningService<WebhookDatabase, object>;

/**
 * The webhook service: secret keys, the target check, the endpoint-change signal (core NATS,
 * connected in the background: it serves without NATS) and routes. `resolveHost` replaces the
 * system resolver for webhook host names (tests).
 */
export function webhookService(resolveHost?: HostResolver): ServiceSpec<WebhookDatabase, WebhookConfig> {
  return {
    name: 'webhook',
    migrations,
    port: (config) => config.WEBHOOK_PORT,
    // The delivery service reads endpoints (with their secrets) and reports outcomes.
    peers: ['delivery'],
    wire({ config, logger, tokens, database, registry }) {
      const signal = startEndpointChangeSignal({ url: config.NATS_URL, auth: config, subjectPrefix: config.EVENTS_SUBJECT_PREFIX, logger });
      const targets = createTargetChecker({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS, ...(resolveHost ? { resolve: resolveHost } : {}) });
      const delivery = createDeliveryClient(config.DELIVERY_URL, tokens);
      const health = startRingHealth({ db: database.db, keys: config.WEBHOOK_SECRET_KEYS, registry, logger, intervalMs: config.WEBHOOK_SECRET_CHECK_INTERVAL_MS });
      return {
        mount: (app) => {
          for (const register of registrations) register(app, { db: database.db, keys: config.WEBHOOK_SECRET_KEYS, secretFailures: health.failed, targets, logger, signal, delivery });
        },
        releases: [() => signal.close(), () => health.watch.stop(), () => delivery.close()],
      };
    },
  };
}

export const startWebhookService = (opts: RunOptions<WebhookConfig> & { resolveHost?: HostResolver }): Promise<RunningWebhookService> =>
  runService(webhookService(opts.resolveHost), opts);

/** `main.ts migrate`: brings the schema up to date and returns. */
export const migrateWebhookSchema = (config: WebhookConfig, logger: Logger): Promise<void> => migrateService(webhookService(), config, logger);
