import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { REPO_ROOT, SERVICES, spawnService, waitUntilReady, type ServiceName, type ServiceProcess } from '../../scripts/lib/services.ts';
import { generateDeploymentKeys, type DeploymentKeys } from '@preflight/service-auth';
import { TEST_DATABASE_URL, TEST_NATS_URL, TEST_REDIS_URL, deleteStreams, dropSchemas, freePort, isolatedName } from '@preflight/testing';

/** What a test needs to drive a running system over HTTP, as a client would. */
export interface SystemInfo {
  gatewayUrl: string;
  adminToken: string;
  serviceUrls: Record<ServiceName, string>;
  /** Each service's SERVICE_AUTH_KEY and the SERVICE_AUTH_PUBLIC_KEYS they all trust: tests mint tokens to the service ports with them. */
  serviceAuth: DeploymentKeys;
}

export interface RunningSystem extends SystemInfo {
  /** The first (or only) process of each service: the one `serviceUrls` and `restart` name. */
  processes: Record<ServiceName, ServiceProcess>;
  /** Every process of each service, the first one included (more than one where `replicas` asked for it). */
  replicas: Record<ServiceName, ServiceProcess[]>;
  /** Each service's Postgres schema (DB_SCHEMA). */
  schemas: Record<ServiceName, string>;
  env: Record<string, string>;
  /** Stops every process of one service (SIGTERM, or SIGKILL to simulate a crash): the service is down, at any replica count. */
  stopService(name: ServiceName, signal?: NodeJS.Signals): Promise<void>;
  /** Stops every process of one service (as `stopService`) and starts as many again, on the same ports; resolves once all are ready. */
  restart(name: ServiceName, signal?: NodeJS.Signals): Promise<void>;
  stop(): Promise<void>;
}

export interface SystemOptions {
  /**
   * Processes per service (default 1, or `E2E_REPLICAS` for every service when that is 2 or
   * more): the extra ones share its schema, stream and consumers as a Deployment's replicas do,
   * each on a port of its own, started once the first is ready (so the first alone runs the
   * migrations). Every call goes to a service's first process (the gateway's for clients,
   * `CAMPAIGN_URL`… for the services); the others consume events, run workers and serve
   * whatever reaches their own port.
   */
  replicas?: Partial<Record<ServiceName, number>>;
  /** Run the bundles the images run (services/<name>/dist/main.js, built here by scripts/build-service.mjs) instead of the sources. */
  built?: boolean;
}

/** `E2E_REPLICAS=N` (N ≥ 2): every service of every end-to-end system as N processes (docs/reliability.md, "Replicas"); otherwise 1. */
export function e2eReplicas(): number {
  const every = Number(process.env.E2E_REPLICAS ?? 0);
  return Number.isInteger(every) && every >= 2 ? every : 1;
}

/** The replica counts a system runs when its caller names none: every service × `e2eReplicas()` (nothing more at 1). */
export function defaultReplicas(): Partial<Record<ServiceName, number>> {
  const every = e2eReplicas();
  return every >= 2 ? Object.fromEntries(SERVICES.map((s) => [s.name, every])) : {};
}

/**
 * Starts every service as its own process on free loopback ports, each in a schema, Redis key
 * prefix and event stream of its own, so any number of systems can run side by side and again.
 */
export async function startSystem(overrides: Record<string, string> = {}, options: SystemOptions = {}): Promise<RunningSystem> {
  const counts = options.replicas ?? defaultReplicas();
  if (options.built) await promisify(execFile)(process.execPath, ['scripts/build-service.mjs', ...SERVICES.map((s) => s.name)], { cwd: REPO_ROOT });
  const schemas = Object.fromEntries(SERVICES.map((s) => [s.name, isolatedName(s.schema)])) as Record<ServiceName, string>;
  const ports = Object.fromEntries(await Promise.all(SERVICES.map(async (s) => [s.name, await freePort()]))) as Record<ServiceName, number>;
  const adminToken = `adm_test_${randomBytes(16).toString('hex')}`;
  const stream = isolatedName('events').toUpperCase();
  const serviceAuth = generateDeploymentKeys(SERVICES.map((s) => s.name), 'e2e');
  const env: Record<string, string> = {
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_URL: TEST_REDIS_URL,
    NATS_URL: TEST_NATS_URL,
    REDIS_KEY_PREFIX: `${isolatedName('redis')}:`,
    EVENTS_STREAM: stream,
    EVENTS_SUBJECT_PREFIX: isolatedName('preflight'),
    ADMIN_TOKEN: adminToken,
    MIGRATE_ON_START: 'true',
    // Test receivers and the provider fakes (integration) listen on loopback; the public-address rule has its own tests.
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
    CAMPAIGN_URL: `http://127.0.0.1:${ports.campaign}`,
    ISSUE_URL: `http://127.0.0.1:${ports.issue}`,
    WEBHOOK_URL: `http://127.0.0.1:${ports.webhook}`,
    DELIVERY_URL: `http://127.0.0.1:${ports.delivery}`,
    INTEGRATION_URL: `http://127.0.0.1:${ports.integration}`,
    // The console: the gateway passes /console through to it; it calls the gateway's admin API
    // back, and browsers (the browser tests) reach it at the gateway's address.
    CONSOLE_URL: `http://127.0.0.1:${ports.console}`,
    GATEWAY_URL: `http://127.0.0.1:${ports.gateway}`,
    CONSOLE_PUBLIC_ORIGIN: `http://127.0.0.1:${ports.gateway}`,
    WEBHOOK_SECRET_KEYS: `test:${randomBytes(32).toString('base64')}`,
    // The integration service: a key ring of its own for provider credentials, the inbound hook
    // URLs it shows on the gateway, links into the gateway (its ISSUE_URL is the issue service above).
    INTEGRATION_SECRET_KEYS: `test:${randomBytes(32).toString('base64')}`,
    PUBLIC_BASE_URL: `http://127.0.0.1:${ports.gateway}`,
    ISSUE_LINK_TEMPLATE: `http://127.0.0.1:${ports.gateway}/dashboard/issues/{issueId}`,
    BIND_HOST: '127.0.0.1',
    SERVICE_AUTH_PUBLIC_KEYS: serviceAuth.publicKeys,
    // Under the test runner several systems run side by side (the shared one and the files that
    // start their own, two at a time): small pools keep them all within Postgres's
    // max_connections (100): 5 connections per service, shared by its replicas under E2E_REPLICAS
    // (2 each at 2; delivery and integration need 2), so a system of 7 services holds at most 35.
    // Benchmarks (not under vitest) keep the services' own pool size.
    ...(process.env.VITEST ? { DB_POOL_MAX: String(Math.max(2, Math.floor(5 / e2eReplicas()))) } : {}),
    ...Object.fromEntries(SERVICES.map((s) => [s.portVar, String(ports[s.name])])),
    ...overrides,
  };
  const envFor = (name: ServiceName) => ({ ...env, DB_SCHEMA: schemas[name], SERVICE_AUTH_KEY: overrides.SERVICE_AUTH_KEY ?? serviceAuth.keys[name]! });
  const echo = process.env.E2E_ECHO ? (name: string, line: string) => console.log(`[${name}] ${line}`) : undefined;

  const processes = {} as Record<ServiceName, ServiceProcess>;
  const replicas = Object.fromEntries(SERVICES.map((s) => [s.name, [] as ServiceProcess[]])) as Record<ServiceName, ServiceProcess[]>;
  /** Starts a service's process number `index` (0 is the first, on the system's port for it; the others get a port of their own, kept across restarts). */
  const launch = async (name: ServiceName, index = 0) => {
    const before = replicas[name][index];
    const port = index === 0 ? ports[name] : before ? Number(new URL(before.url).port) : await freePort();
    const portVar = SERVICES.find((s) => s.name === name)!.portVar;
    const proc = spawnService(name, port, { ...envFor(name), [portVar]: String(port) }, echo, { built: options.built });
    replicas[name][index] = proc;
    if (index === 0) processes[name] = proc;
    // Seven services start at once from their sources, beside other files' systems on two cores.
    await waitUntilReady(proc, 150_000);
  };
  const all = () => Object.values(replicas).flat();
  const stopService = async (name: ServiceName, signal: NodeJS.Signals = 'SIGTERM') => {
    await Promise.all(replicas[name].map((p) => p.stop(signal)));
  };
  try {
    await Promise.all(
      SERVICES.map(async (s) => {
        await launch(s.name);
        for (let i = 1; i < (counts[s.name] ?? 1); i++) await launch(s.name, i);
      }),
    );
  } catch (err) {
    await Promise.all(all().map((p) => p.stop('SIGKILL')));
    await dropSchemas(Object.values(schemas));
    await deleteStreams([stream]);
    throw err;
  }

  const serviceUrls = Object.fromEntries(SERVICES.map((s) => [s.name, processes[s.name].url])) as Record<ServiceName, string>;
  return {
    gatewayUrl: serviceUrls.gateway,
    adminToken,
    serviceUrls,
    serviceAuth,
    processes,
    replicas,
    schemas,
    env,
    stopService,
    restart: async (name, signal = 'SIGTERM') => {
      await stopService(name, signal);
      // The schema is migrated already: every replica starts at once, as a Deployment's pods do after a crash.
      await Promise.all(replicas[name].map((_, i) => launch(name, i)));
    },
    stop: async () => {
      await Promise.all(all().map((p) => p.stop('SIGTERM')));
      await dropSchemas(Object.values(schemas));
      await deleteStreams([stream]);
    },
  };
}
