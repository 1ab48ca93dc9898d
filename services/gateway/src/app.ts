import type { Logger } from '@preflight/log';
import { tokenVerifier } from '@preflight/service-auth';
import { migrateService, runService, type RunningService, type ServiceSpec } from '@preflight/service-kit';
import { apiKeyAdmission, apiKeyAuthenticator } from './auth/api-key-auth.ts';
import { AdminLockout } from './auth/admin-lockout.ts';
import { AuditRecorder } from './audit/recorder.ts';
import { adminAuthenticator } from './auth/admin-token.ts';
import { KeyCache } from './auth/key-cache.ts';
import { LastUsedRecorder } from './auth/last-used.ts';
import { memberAuthenticator } from './auth/member-token.ts';
import { GATEWAY_SCHEMA, trustProxySetting, type GatewayConfig } from './config.ts';
import { PerKeyInFlight } from './limits/slots.ts';
import { IdempotencyStore } from './idempotency/record-store.ts';
import { gatewayMetrics } from './metrics.ts';
import { migrations } from './migrations/index.ts';
import { consolePages } from './proxy/console-pages.ts';
import { createUpstreams, DEFAULT_BREAKER, type BreakerOptions } from './proxy/upstreams.ts';
import { FailoverRateLimiter } from './rate-limit/failover-limiter.ts';
import type { RateLimitPolicy } from './rate-limit/policy.ts';
import { RedisRateLimiter } from './rate-limit/redis-limiter.ts';
import { createRedis, redisReady } from '@preflight/redis';
import { dispatcher } from './routing/dispatch.ts';
import { ROUTES } from './routes/index.ts';
import { touchOperatorTokenLastUsed, type OperatorIdentity } from './storage/operator-tokens.ts';
import type { IdentityDb } from './storage/schema.ts';

export interface GatewayOptions {
  /** Exit the process after a graceful shutdown (off for in-process tests). */
  exitOnShutdown?: boolean;
  /** Overrides GATEWAY_PORT (tests listen on 0). */
  port?: number;
  host?: string;
  logger?: Logger;
  breaker?: BreakerOptions;
  /** How long a key lookup is cached in Redis. */
  keyCacheTtlSeconds?: number;
}

export type RunningGateway = RunningService<IdentityDb, object>;

/** Bounded so a gateway whose Redis is down still starts promptly (it runs degraded). */
const REDIS_STARTUP_WAIT_MS = 2_000;
/** A rate-limit or key-cache command waits at most this long before the request falls back. */
const GATEWAY_REDIS_COMMAND_TIMEOUT_MS = 500;

/** The gateway: Redis, limiters, the key cache, upstreams and the one dispatcher of every route. */
export function gatewayService(opts: Pick<GatewayOptions, 'breaker' | 'keyCacheTtlSeconds'> = {}): ServiceSpec<IdentityDb, GatewayConfig> {
  return {
    name: 'gateway',
    schema: GATEWAY_SCHEMA,
    migrations,
    port: (config) => config.GATEWAY_PORT,
    // The public port: clients authenticate with API keys and operator tokens, checked per route.
    peers: false,
    async wire({ config, logger, database, registry, tokens }) {
      const redis = createRedis(config.REDIS_URL, logger, { commandTimeoutMs: GATEWAY_REDIS_COMMAND_TIMEOUT_MS });
      if (!(await redisReady(redis, REDIS_STARTUP_WAIT_MS))) {
        logger.warn('Redis is not reachable; starting with per-replica rate limits and no key cache');
      }
      const metrics = gatewayMetrics(registry);
      const policy: RateLimitPolicy = { limit: config.RATE_LIMIT_MAX, windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS };
      const sharedLimiter = new RedisRateLimiter(redis, config.REDIS_KEY_PREFIX, policy);
      const limiter = new FailoverRateLimiter(sharedLimiter, policy, logger, metrics.rateLimiterDegraded);
      const adminPolicy: RateLimitPolicy = { name: 'admin', limit: config.ADMIN_RATE_LIMIT_MAX, windowSeconds: config.ADMIN_RATE_LIMIT_WINDOW_SECONDS };
      const adminLimiter = new FailoverRateLimiter(new RedisRateLimiter(redis, config.REDIS_KEY_PREFIX, adminPolicy), adminPolicy, logger, metrics.adminRateLimiterDegraded);
      const hookPolicy: RateLimitPolicy = { name: 'hook', limit: config.HOOK_RATE_LIMIT_MAX, windowSeconds: config.HOOK_RATE_LIMIT_WINDOW_SECONDS };
      const hookLimiter = new FailoverRateLimiter(new RedisRateLimiter(redis, config.REDIS_KEY_PREFIX, hookPolicy), hookPolicy, logger, metrics.hookRateLimiterDegraded);
      const adminLockout = new AdminLockout(config.ADMIN_AUTH_FAILURES_MAX, config.ADMIN_AUTH_FAILURE_WINDOW_SECONDS);
      const idempotencyStore = new IdempotencyStore(redis, config.REDIS_KEY_PREFIX, config.IDEMPOTENCY_TTL_SECONDS, config.IDEMPOTENCY_LOCK_TTL_MS);
      const keyCache = new KeyCache(redis, config.REDIS_KEY_PREFIX, opts.keyCacheTtlSeconds ?? 30, logger);
      const lastUsed = new LastUsedRecorder(database.db, logger);
      const operatorCache = new KeyCache<OperatorIdentity>(redis, config.REDIS_KEY_PREFIX, opts.keyCacheTtlSeconds ?? 30, logger, 'opr');
      const operatorLastUsed = new LastUsedRecorder(database.db, logger, touchOperatorTokenLastUsed);
      const audit = new AuditRecorder(database.db, logger, metrics);
      audit.startSweep(config.AUDIT_LOG_RETENTION_DAYS);
      const upstreams = createUpstreams(config, metrics, logger, tokens, opts.breaker ?? DEFAULT_BREAKER);
      // The console's tokens acting for its members on /admin/v1 (auth/member-token.ts).
      const authenticateMember = memberAuthenticator({ verifier: tokenVerifier('gateway', config.SERVICE_AUTH_PUBLIC_KEYS), metrics });
      return {
        // Redis is not a readiness check on purpose: without it the gateway runs degraded, not unready.
        app: { rawBodies: true, trustProxy: trustProxySetting(config.TRUST_PROXY) },
        mount: (app) => {
          app.use(
            consolePages({
              upstream: upstreams.console,
              metrics,
              logger,
              bodyDeadlineMs: config.REQUEST_BODY_TIMEOUT_MS,
              queueDeadlineMs: config.UPSTREAM_QUEUE_TIMEOUT_MS,
            }),
          );
          app.use(
            dispatcher(ROUTES, {
              config,
              db: database.db,
              keyCache,
              operatorCache,
              logger,
              metrics,
              upstreams,
              policy,
              inFlight: new PerKeyInFlight(config.KEY_CONCURRENCY_MAX),
              admitKey: apiKeyAdmission({
                authenticate: apiKeyAuthenticator({ db: database.db, cache: keyCache, lastUsed, metrics, logger }),
                limiter,
                cache: keyCache,
                lastUsed,
                metrics,
              }),
              authenticateAdmin: adminAuthenticator({
                adminToken: config.ADMIN_TOKEN,
                metrics,
                lockout: adminLockout,
                db: database.db,
                cache: operatorCache,
                lastUsed: operatorLastUsed,
                logger,
                authenticateMember,
              }),
              audit,
              adminLimiter,
              hookLimiter,
              idempotency: {
                store: idempotencyStore,
                metrics,
                logger,
                waitMs: config.IDEMPOTENCY_WAIT_MS,
                maxResponseBytes: config.IDEMPOTENCY_MAX_RESPONSE_BYTES,
              },
            }),
          );
        },
        releases: [
          () => lastUsed.flush(),
          () => operatorLastUsed.flush(),
          () => audit.flush(),
          () => Promise.all(Object.values(upstreams).map((u) => u.close())),
          async () => {
            limiter.close();
            adminLimiter.close();
            hookLimiter.close();
            adminLockout.close();
            keyCache.close();
            operatorCache.close();
            redis.disconnect();
          },
        ],
      };
    },
  };
}

export const startGateway = (config: GatewayConfig, opts: GatewayOptions = {}): Promise<RunningGateway> =>
  runService(gatewayService(opts), { config, logger: opts.logger, host: opts.host, port: opts.port, exitOnShutdown: opts.exitOnShutdown });

/** `main.ts migrate`: bring the identity schema up to date and stop. */
export const migrateOnly = (config: GatewayConfig, logger: Logger): Promise<void> => migrateService(gatewayService(), config, logger);
