import { randomUUID } from 'node:crypto';
import { Breakers, breakerThresholds } from '@preflight/breakers';
import { startConsumer } from '@preflight/bus';
import { allSubjects } from '@preflight/events';
import { jsonBodies } from '@preflight/http';
import type { Logger } from '@preflight/log';
import { createTargetChecker, type HostResolver } from '@preflight/net';
import { consumerBase, migrateService, runService, type RunOptions, type RunningService, type ServiceSpec } from '@preflight/service-kit';
import { createIssueClient } from './clients/issue-client.ts';
import type { IntegrationConfig } from './config.ts';
import { ConnectedOrgs } from './consumer/connected-orgs.ts';
import { eventJobsHandler, eventWanted, SYNC_CONSUMER } from './consumer/event-jobs.ts';
import { migrations } from './migrations/index.ts';
import { createSafeFetch, type Resolver } from './outbound/safe-fetch.ts';
import { adminRegistrations, publicRegistrations } from './routes/index.ts';
import { startRingHealth } from './secrets/ring-health.ts';
import { liveOrgsAmong } from './storage/connections.ts';
import type { IntegrationDatabase } from './storage/schema.ts';
import { ConnectionClients } from './worker/connection-clients.ts';
import { startJobWorker } from './worker/job-worker.ts';
import { startRetention } from './worker/retention.ts';

export type RunningIntegrationService = RunningService<IntegrationDatabase, object>;

/** Replaces the system resolver for provider host names (tests). */
export interface IntegrationResolvers {
  resolveHost?: HostResolver;
  resolve?: Resolver;
}

/**
 * The integration service: the consumer that turns domain events into jobs, the worker that
 * runs them against the providers (per-connection breakers and caps, address rules on every
 * call), the admin routes and the trackers' inbound hook. Shutdown stops the consumer, then
 * lets the calls in flight record their results.
 */
export function integrationService(resolvers: IntegrationResolvers = {}): ServiceSpec<IntegrationDatabase, IntegrationConfig> {
  return {
    name: 'integration',
    migrations,
    port: (config) => config.INTEGRATION_PORT,
    // Only the gateway calls it (admin routes, the trackers' inbound hooks).
    peers: [],
    events: true,
    async wire(resources) {
      const { config, logger, database, registry, tokens } = resources;
      const allowPrivate = config.WEBHOOK_ALLOW_PRIVATE_TARGETS;
      const safeFetch = createSafeFetch({ allowPrivate, ...(resolvers.resolve ? { resolve: resolvers.resolve } : {}) });
      const fetch = safeFetch.create(config.INTEGRATION_CALL_TIMEOUT_MS);
      const clients = new ConnectionClients(config.INTEGRATION_SECRET_KEYS, fetch);
      const issues = createIssueClient(config.ISSUE_URL, tokens);
      const breakers = new Breakers(
        {
          metricPrefix: 'integration',
          subject: 'connection',
          whileOpen: "the connection's jobs wait until it half-opens",
          ...breakerThresholds(config, 'INTEGRATION'),
        },
        logger,
        registry,
      );
      const linkOf = ({ issueId, campaignId }: { issueId: string; campaignId: string }) =>
        config.ISSUE_LINK_TEMPLATE.replaceAll('{issueId}', encodeURIComponent(issueId)).replaceAll('{campaignId}', encodeURIComponent(campaignId));
      // Names the NOTIFYs of the jobs this replica's consumer queues, which its own worker claims first.
      const replicaId = randomUUID();
      const worker = startJobWorker({
        replicaId,
        db: database.db,
        pool: database.pool,
        logger,
        registry,
        deps: { db: database.db, issues, clients, linkOf },
        breakers,
        workers: config.INTEGRATION_WORKERS,
        perConnection: config.INTEGRATION_MAX_CONCURRENCY_PER_CONNECTION,
        leaseMs: config.INTEGRATION_LEASE_MS,
        pollMs: config.INTEGRATION_POLL_INTERVAL_MS,
        maxAttempts: config.INTEGRATION_MAX_ATTEMPTS,
        breakerResetMs: config.INTEGRATION_BREAKER_RESET_MS,
        createRetryMinMs: config.INTEGRATION_CREATE_RETRY_MIN_MS,
      });
      const connected = new ConnectedOrgs((orgIds) => liveOrgsAmong(database.db, orgIds));
      const consumer = await startConsumer({
        ...consumerBase(resources),
        durable: SYNC_CONSUMER,
        // One subject: NATS before 2.10 allows one filter per consumer.
        filterSubjects: [allSubjects(config.EVENTS_SUBJECT_PREFIX)],
        concurrency: 4,
        wants: eventWanted(connected, config.EVENTS_SUBJECT_PREFIX),
        batchHandler: eventJobsHandler(config.EVENTS_SUBJECT_PREFIX, logger, replicaId),
      });
      const ringHealth = startRingHealth({ db: database.db, keys: config.INTEGRATION_SECRET_KEYS, registry, logger, intervalMs: config.INTEGRATION_SECRET_CHECK_INTERVAL_MS });
      const retention = startRetention(database.db, config.INTEGRATION_ACTIVITY_RETENTION_DAYS, logger);
      const targets = createTargetChecker({ allowPrivate, ...(resolvers.resolveHost ? { resolve: resolvers.resolveHost } : {}) });
      const base = config.PUBLIC_BASE_URL.replace(/\/+$/, '');
      const ctx = {
        db: database.db,
        keys: config.INTEGRATION_SECRET_KEYS,
        logger,
        targets,
        clients,
        breakers,
        worker,
        issues,
        fetch,
        inboundUrl: (id: string) => `${base}/integrations/v1/hooks/${id}`,
      };
      return {
        app: { rawBodies: true },
        mount: (app) => {
          for (const register of publicRegistrations) register(app, ctx);
          app.use('/admin', jsonBodies());
          for (const register of adminRegistrations) register(app, ctx);
        },
        releases: [
          () => consumer.stop(),
          () => worker.stop(),
          async () => retention.stop(),
          () => ringHealth.stop(),
          async () => breakers.shutdown(),
          () => issues.close(),
          () => safeFetch.close(),
        ],
      };
    },
  };
}

export const startIntegrationService = (opts: RunOptions<IntegrationConfig> & IntegrationResolvers): Promise<RunningIntegrationService> =>
  runService(integrationService(opts), opts);

/** `main.ts migrate`: brings the schema up to date and returns. */
export const migrateIntegrationSchema = (config: IntegrationConfig, logger: Logger): Promise<void> => migrateService(integrationService(), config, logger);
