import { jsonBodies } from '@preflight/http';
import type { Logger } from '@preflight/log';
import { runService, migrateService, type RunOptions, type RunningService, type ServiceSpec } from '@preflight/service-kit';
import { signInLimits } from './auth/limits.ts';
import { oidcSettings, type ConsoleConfig } from './config.ts';
import { createAdminFetch, type Member } from './gateway-client/fetch.ts';
import { consoleMetrics } from './metrics.ts';
import { migrations } from './migrations/index.ts';
import { createRedis, redisReady } from '@preflight/redis';
import { registrations } from './routes/index.ts';
import { sessionStore, type SessionStore } from './sessions/store.ts';
import type { ConsoleDatabase } from './storage/schema.ts';
import { consoleRouter } from './web/router.ts';

/** A session or limit command waits at most this long before the page answers 503. */
const CONSOLE_REDIS_COMMAND_TIMEOUT_MS = 1_000;

export interface ConsoleHandle {
  /** The session store (tests look sessions up and end them). */
  sessions: SessionStore;
}

export type RunningConsoleService = RunningService<ConsoleDatabase, ConsoleHandle>;

/**
 * The console service: the organisation's own web console under /console (sessions in Redis,
 * every action a call to the gateway's admin API as the member) and the members API on
 * /admin/v1 (invitations, roles). Only the gateway calls this port: it passes /console through
 * and routes the members API here like any admin endpoint.
 */
export function consoleService(): ServiceSpec<ConsoleDatabase, ConsoleConfig, ConsoleHandle> {
  return {
    name: 'console',
    migrations,
    port: (config) => config.CONSOLE_PORT,
    peers: [],
    async wire({ config, logger, tokens, database, registry }) {
      const redis = createRedis(config.REDIS_URL, logger, { commandTimeoutMs: CONSOLE_REDIS_COMMAND_TIMEOUT_MS });
      if (!(await redisReady(redis, 2_000))) logger.warn('Redis is not reachable yet: nobody can sign in until it is');
      const prefix = config.REDIS_KEY_PREFIX;
      const sessions = sessionStore(redis, { prefix, idleSeconds: config.CONSOLE_SESSION_IDLE_SECONDS, absoluteSeconds: config.CONSOLE_SESSION_ABSOLUTE_SECONDS });
      const metrics = consoleMetrics(registry);
      const limits = signInLimits(redis, {
        prefix,
        maxPerAccount: config.CONSOLE_SIGN_IN_MAX_PER_ACCOUNT,
        maxPerAddress: config.CONSOLE_SIGN_IN_MAX_PER_ADDRESS,
        windowSeconds: config.CONSOLE_SIGN_IN_WINDOW_SECONDS,
      });
      const adminFetch = createAdminFetch(config.GATEWAY_URL, tokens);
      const db = database.db;
      const publicOrigin = config.CONSOLE_PUBLIC_ORIGIN;
      return {
        // Bodies are read per part: JSON on the members API, forms under /console.
        app: { rawBodies: true, trustProxy: config.CONSOLE_TRUST_PROXY },
        mount(app) {
          app.use('/admin/v1', ...jsonBodies());
          const ctx = { db, sessions, metrics, logger, publicOrigin, invitationTtlSeconds: config.CONSOLE_INVITATION_TTL_SECONDS };
          for (const register of registrations) register(app, ctx);
          const organisationName = (member: Member) =>
            adminFetch<{ name: string }>(member, 'GET', `/admin/v1/organizations/${member.orgId}`).then(
              (org) => org.name,
              (err: unknown) => {
                logger.warn({ err: (err as Error).message, orgId: member.orgId }, 'organisation name not available from the gateway; the placeholder is shown');
                return undefined;
              },
            );
          const web = { db, sessions, limits, metrics, logger, redis, redisPrefix: prefix, publicOrigin, oidc: oidcSettings(config), absoluteSeconds: config.CONSOLE_SESSION_ABSOLUTE_SECONDS, organisationName };
          app.use('/console', consoleRouter(web, adminFetch));
        },
        readiness: {
          // Shown, never gating: no other replica would have Redis either, and the pages say so (503).
          redis: { gate: 'never' as const, check: async () => void (await redis.ping()) },
        },
        releases: [async () => redis.quit().catch(() => redis.disconnect())],
        handle: { sessions },
      };
    },
  };
}

export const startConsoleService = (opts: RunOptions<ConsoleConfig>): Promise<RunningConsoleService> => runService(consoleService(), opts);

/** `main.ts migrate`: brings the schema up to date and returns. */
export const migrateConsoleSchema = (config: ConsoleConfig, logger: Logger): Promise<void> => migrateService(consoleService(), config, logger);
