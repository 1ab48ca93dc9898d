import { env } from '@preflight/config';
import type { PublicKeyRing, SigningKey } from '@preflight/service-auth';

/** The local database every service defaults to (`npm start`). */
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/preflight';

/**
 * The database settings every service reads: its URL, the one schema it owns, its pool and
 * whether it migrates at start (off where a Helm hook Job runs `main.ts migrate`). `poolMin`
 * for a service that holds connections of its own (a LISTEN client).
 */
export const databaseConfigShape = (schema: string, opts: { poolMin?: number } = {}) => ({
  DATABASE_URL: env.url(['postgres', 'postgresql'], DEFAULT_DATABASE_URL),
  DB_SCHEMA: env.identifier(schema),
  DB_POOL_MAX: env.int(10, { min: opts.poolMin ?? 1, max: 100 }),
  MIGRATE_ON_START: env.bool(true),
});

/**
 * The interface a service listens on: every interface in a container (the default), loopback
 * where the service ports must not be reachable from elsewhere (`npm start`).
 */
export const listenConfigShape = {
  BIND_HOST: env.string('0.0.0.0'),
};

/**
 * What `serviceMain` reads for the kit itself, beside the service's own configuration (so no
 * service's config.ts, and no chart ConfigMap that mirrors it, has to list it).
 * `READINESS_GRACE_MS`: how long Postgres may be unreachable before `/readyz` fails (a blip
 * takes no pod out of its Service; 0 fails at once). NATS never fails `/readyz`.
 */
export const kitConfigShape = {
  READINESS_GRACE_MS: env.int(10_000, { min: 0, max: 600_000 }),
};

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const logConfigShape = {
  LOG_LEVEL: env.oneOf(LOG_LEVELS, 'info'),
};

/** What the kit reads of every service's configuration. */
export interface KitConfig {
  DATABASE_URL: string;
  DB_SCHEMA: string;
  DB_POOL_MAX: number;
  MIGRATE_ON_START: boolean;
  LOG_LEVEL: (typeof LOG_LEVELS)[number];
  BIND_HOST?: string;
  /** Normally from `kitConfigShape` (serviceMain); tests may set it here. */
  READINESS_GRACE_MS?: number;
  /**
   * This service's key for the tokens it sends its peers. Like READINESS_GRACE_MS, read by
   * `serviceMain` (libs/service-auth `serviceAuthConfigShape`), so no service's config.ts lists it;
   * tests set both here.
   */
  SERVICE_AUTH_KEY?: SigningKey;
  /** The keys of the tokens this port accepts; required unless the spec's `peers` is false (the gateway). */
  SERVICE_AUTH_PUBLIC_KEYS?: PublicKeyRing;
}
