import type { Registry } from 'prom-client';
import { createDatabase, migrateToLatest, type Kysely } from '@preflight/db';
import { createApp, createRegistry, serve } from '@preflight/http';
import { createLogger, type Logger } from '@preflight/log';
import { apiKeyAdmission, apiKeyAuthenticator } from './auth/api-key-auth.ts';
import { AdminLockout } from './auth/admin-lockout.ts';
import { adminAuthenticator } from './auth/admin-token.ts';
import { KeyCache } from './auth/key-cache.ts';
import { LastUsedRecorder } from './auth/last-used.ts';
import { trustProxySetting, type GatewayConfig } from './config.ts';
import { PerKeyInFlight } from './limits/slots.ts';
import { IdempotencyStore } from './idempotency/record-store.ts';
import { gatewayMetrics } from './metrics.ts';
import { migrations } from './migrations/index.ts';
import { createUpstreams, DEFAULT_BREAKER, type BreakerOptions } from './proxy/upstreams.ts';
import { FailoverRateLimiter } from './rate-limit/failover-limiter.ts';
import type { RateLimitPolicy } from './rate-limit/policy.ts';
import { RedisRateLimiter } from './rate-limit/redis-limiter.ts';
import { createRedis, redisReady } from './redis.ts';
import { dispatcher } from './routing/dispatch.ts';
import { ROUTES } from './routes/index.ts';
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

export interface RunningGateway {
  port: number;
  url: string;
  registry: Registry;
  shutdown(): Promise<void>;
}

/** Bounded so a gateway whose Redis is down still starts promptly (it runs degraded). */
const REDIS_STARTUP_WAIT_MS = 2_000;

/** Wiring: database, Redis, limiter, upstreams, the app and its one dispatcher; then serve. */
export async function startGateway(config: GatewayConfig, opts: GatewayOptions = {}): Promise<RunningGateway> {
  const logger = opts.logger ?? createLogger('gateway', { level: config.LOG_LEVEL });
  const database = createDatabase<IdentityDb>({
    url: config.DATABASE_URL,
    schema: config.DB_SCHEMA,
    poolMax: config.DB_POOL_MAX,
    applicationName: 'gateway',
  });
  const redis = createRedis(config.REDIS_URL, logger);
  try {
    if (config.MIGRATE_ON_START) await migrateToLatest(database.db as Kysely<unknown>, database.schema, migrations, logger);
    if (!(await redisReady(redis, REDIS_STARTUP_WAIT_MS))) {
      logger.warn('Redis is not reachable; starting with per-replica rate limits and no key cache');
    }
  } catch (err) {
    redis.disconnect();
    await database.close();
    throw err;
  }

  const registry = createRegistry('gateway');
  const metrics = gatewayMetrics(registry);
  const policy: RateLimitPolicy = { limit: config.RATE_LIMIT_MAX, windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS };
  const sharedLimiter = new RedisRateLimiter(redis, config.REDIS_KEY_PREFIX, policy);
  const limiter = new FailoverRateLimiter(sharedLimiter, policy, logger, metrics.rateLimiterDegraded);
  const adminPolicy: RateLimitPolicy = { name: 'admin', limit: config.ADMIN_RATE_LIMIT_MAX, windowSeconds: config.ADMIN_RATE_LIMIT_WINDOW_SECONDS };
  const adminLimiter = new FailoverRateLimiter(new RedisRateLimiter(redis, config.REDIS_KEY_PREFIX, adminPolicy), adminPolicy, logger, metrics.adminRateLimiterDegraded);
  const adminLockout = new AdminLockout(config.ADMIN_AUTH_FAILURES_MAX, config.ADMIN_AUTH_FAILURE_WINDOW_SECONDS);
  const idempotencyStore = new IdempotencyStore(redis, config.REDIS_KEY_PREFIX, config.IDEMPOTENCY_TTL_SECONDS, config.IDEMPOTENCY_LOCK_TTL_MS);
  const keyCache = new KeyCache(redis, config.REDIS_KEY_PREFIX, opts.keyCacheTtlSeconds ?? 30, logger);
  const lastUsed = new LastUsedRecorder(database.db, logger);
  const upstreams = createUpstreams(config, metrics, logger, opts.breaker ?? DEFAULT_BREAKER);

  const { app, markDraining } = createApp(
    {
      service: 'gateway',
      logger,
      registry,
      // Redis is not here on purpose: without it the gateway runs degraded, not unready.
      readiness: { postgres: database.ping },
      rawBodies: true,
      trustProxy: trustProxySetting(config.TRUST_PROXY),
    },
    (app) => {
      app.use(
        dispatcher(ROUTES, {
          config,
          db: database.db,
          keyCache,
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
          authenticateAdmin: adminAuthenticator(config.ADMIN_TOKEN, metrics, adminLockout),
          adminLimiter,
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
  );

  const running = await serve({
    app,
    port: opts.port ?? config.GATEWAY_PORT,
    host: opts.host,
    logger,
    onDrain: markDraining,
    exitOnShutdown: opts.exitOnShutdown ?? true,
    onShutdown: [
      () => lastUsed.flush(),
      () => Promise.all(Object.values(upstreams).map((u) => u.close())),
      async () => {
        limiter.close();
        adminLimiter.close();
        adminLockout.close();
        keyCache.close();
        redis.disconnect();
      },
      () => database.close(),
    ],
  });
  const host = opts.host ?? '127.0.0.1';
  return {
    port: running.port,
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${running.port}`,
    registry,
    shutdown: () => running.shutdown(),
  };
}

/** `main.ts migrate`: bring the identity schema up to date and stop. */
export async function migrateOnly(config: GatewayConfig, logger: Logger): Promise<void> {
  const database = createDatabase<IdentityDb>({ url: config.DATABASE_URL, schema: config.DB_SCHEMA, poolMax: 1, applicationName: 'gateway-migrate' });
  try {
    await migrateToLatest(database.db as Kysely<unknown>, database.schema, migrations, logger);
  } finally {
    await database.close();
  }
}
