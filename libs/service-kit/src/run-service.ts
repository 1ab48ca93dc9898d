import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Express } from 'express';
import type { Registry } from 'prom-client';
import { connectNats, ensureStream, eventStreamOptions, type EventsConfig } from '@preflight/bus';
import { createDatabase, migrateToLatest, type Database, type Kysely, type MigrationSet } from '@preflight/db';
import { createApp, createRegistry, serve, type AppOptions } from '@preflight/http';
import { createLogger, type Logger } from '@preflight/log';
import { serviceAuthGuard, serviceTokens, tokenVerifier, type ServiceTokens } from '@preflight/service-auth';
import type { KitConfig } from './config.ts';

export interface NatsResources {
  conn: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
}

/** What the kit opened for a service, in the order it opened them. */
export interface Resources<DB, C> {
  config: C;
  logger: Logger;
  database: Database<DB>;
  registry: Registry;
  /** With `events: true`: the connection, with the events stream ensured. */
  nats: NatsResources | undefined;
  /** `Authorization` values for calls to other services, signed as this one (libs/service-auth). */
  tokens: ServiceTokens;
}

/** What a service adds on top: its routes, the parts it started and how to release them. */
export interface Wiring<H> {
  mount(app: Express): void;
  /** Released first at shutdown, in order, before NATS and the database close. */
  releases?: Array<() => Promise<unknown>>;
  /** Readiness checks besides Postgres (and NATS, with `events`). */
  readiness?: AppOptions['readiness'];
  app?: Pick<AppOptions, 'rawBodies' | 'trustProxy' | 'bodyLimitBytes'>;
  /** Handed back to the caller (tests reach a relay or a registry through it). */
  handle?: H;
}

export interface ServiceSpec<DB, C extends KitConfig, H = object> {
  name: string;
  /**
   * The schema it owns when that is not its name (the gateway's `identity`): the default of
   * DB_SCHEMA for `main.ts migrate`, which reads no more than the database settings.
   */
  schema?: string;
  migrations: MigrationSet;
  port(config: C): number;
  /**
   * The services besides the gateway that call this port, each with a token of its own
   * (libs/service-auth); anything else gets 401 or 403. `false`: a public port that
   * authenticates its clients itself (the gateway).
   */
  peers: readonly string[] | false;
  /** Connects to NATS and ensures the events stream before `wire`. */
  events?: C extends EventsConfig ? boolean : false;
  wire(resources: Resources<DB, C>): Promise<Wiring<H>> | Wiring<H>;
}

export interface RunOptions<C> {
  config: C;
  logger?: Logger | undefined;
  /** Interface to listen on; tests use loopback. */
  host?: string | undefined;
  /** Overrides the configured port (tests listen on 0). */
  port?: number | undefined;
  /** Off in tests, which run several services in one process. */
  exitOnShutdown?: boolean | undefined;
  /** Run after everything else is released (the span exporter's last flush). */
  finally?: Array<() => Promise<unknown>> | undefined;
}

export type RunningService<DB, H> = {
  port: number;
  url: string;
  registry: Registry;
  database: Database<DB>;
  shutdown(reason?: string): Promise<void>;
} & H;

function openDatabase<DB>(name: string, config: KitConfig): Database<DB> {
  return createDatabase<DB>({ url: config.DATABASE_URL, schema: config.DB_SCHEMA, poolMax: config.DB_POOL_MAX, applicationName: name });
}

/** `main.ts migrate`: brings the service's schema up to date and returns. */
export async function migrateService<DB, C extends KitConfig>(spec: ServiceSpec<DB, C, unknown>, config: KitConfig, logger: Logger): Promise<void> {
  const database = openDatabase<DB>(spec.name, config);
  try {
    await migrateToLatest(database.db as Kysely<unknown>, database.schema, spec.migrations, logger);
  } finally {
    await database.close();
  }
}

/**
 * Runs a service: the database and its migrations (unless a hook Job runs them), NATS and
 * the events stream when it uses them, a metrics registry, then its own wiring, the app with
 * `/healthz`, `/readyz` (Postgres after a grace, its own checks; NATS only reported) and `/metrics`, and the server.
 * At shutdown (or a failed start) its releases run first, in order, then NATS and the pool close.
 */
export async function runService<DB, C extends KitConfig, H extends object = object>(spec: ServiceSpec<DB, C, H>, opts: RunOptions<C>): Promise<RunningService<DB, H>> {
  const { config } = opts;
  const logger = opts.logger ?? createLogger(spec.name, { level: config.LOG_LEVEL });
  const database = openDatabase<DB>(spec.name, config);
  const registry = createRegistry(spec.name);
  let nats: NatsResources | undefined;
  let wiring: Wiring<H> | undefined;
  const releases = (): Array<() => Promise<unknown>> => [
    ...(wiring?.releases ?? []),
    async () => nats?.conn.drain().catch(() => nats?.conn.close()),
    () => database.close(),
    ...(opts.finally ?? []),
  ];

  try {
    const tokens = serviceTokens(required(config.SERVICE_AUTH_KEY, 'SERVICE_AUTH_KEY', 'this service\'s signing key'));
    const authenticate =
      spec.peers === false
        ? undefined
        : serviceAuthGuard({ self: spec.name, peers: spec.peers, verifier: tokenVerifier(spec.name, required(config.SERVICE_AUTH_PUBLIC_KEYS, 'SERVICE_AUTH_PUBLIC_KEYS', 'the keys of the services allowed to call this one')) });
    if (config.MIGRATE_ON_START) await migrateToLatest(database.db as Kysely<unknown>, database.schema, spec.migrations, logger);
    if (spec.events) {
      const conn = await connectNats({ url: (config as unknown as EventsConfig).NATS_URL, name: spec.name, logger, auth: config as unknown as EventsConfig });
      nats = { conn, js: jetstream(conn), jsm: await jetstreamManager(conn) };
      await ensureStream(nats.jsm, eventStreamOptions(config as unknown as EventsConfig));
    }
    wiring = await spec.wire({ config, logger, database, registry, nats, tokens });
    const conn = nats?.conn;
    const { app, markDraining } = createApp(
      {
        service: spec.name,
        logger,
        registry,
        ...wiring.app,
        ...(authenticate ? { authenticate } : {}),
        readinessGraceMs: config.READINESS_GRACE_MS,
        readiness: {
          // Every route needs Postgres: the pod turns unready once it has been unreachable for
          // longer than READINESS_GRACE_MS (a blip does not take every pod out at once).
          postgres: database.ping,
          // A round trip to the server: fails while the connection is down or reconnecting. Never
          // fails readiness: requests commit their events to the outbox, which the relay
          // publishes once NATS is back (consumers just pause). Shown in /healthz and dependency_up.
          ...(conn
            ? {
                nats: {
                  gate: 'never' as const,
                  check: async () => {
                    if (conn.isClosed()) throw new Error('connection closed');
                    await conn.flush();
                  },
                },
              }
            : {}),
          ...wiring.readiness,
        },
      },
      (a) => wiring!.mount(a),
    );
    const server = await serve({
      app,
      port: opts.port ?? spec.port(config),
      ...(opts.host ? { host: opts.host } : {}),
      logger,
      onDrain: markDraining,
      onShutdown: releases(),
      exitOnShutdown: opts.exitOnShutdown ?? true,
    });
    const host = !opts.host || opts.host === '0.0.0.0' ? '127.0.0.1' : opts.host;
    return {
      ...(wiring.handle as H),
      port: server.port,
      url: `http://${host}:${server.port}`,
      registry,
      database,
      shutdown: server.shutdown,
    };
  } catch (err) {
    for (const release of releases()) {
      await release().catch((cleanupErr: unknown) => logger.warn({ err: (cleanupErr as Error).message }, 'cleanup after a failed start failed'));
    }
    throw err;
  }
}

/** Checked here as well as by `serviceMain`: a port started without its keys must not serve anyone. */
function required<T>(value: T | undefined, name: string, what: string): T {
  if (value === undefined) throw new Error(`${name} is required: ${what} (docs/operations.md, "Service-to-service keys")`);
  return value;
}
