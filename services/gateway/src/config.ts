import { z } from 'zod';
import { env, loadConfig } from '@preflight/config';
import { serviceAuthConfigShape } from '@preflight/service-auth';
import { databaseConfigShape, listenConfigShape, logConfigShape } from '@preflight/service-kit';
import { looksLikeServiceToken } from './auth/credentials.ts';

/**
 * The gateway's environment, read once at start. A bad value stops the process with one line
 * naming the variable (exit 78).
 */
/** The schema the gateway owns: organisations, API keys, operator tokens, the admin audit log. */
export const GATEWAY_SCHEMA = 'identity';

export const gatewayEnv = {
  // HTTP
  GATEWAY_PORT: env.port(8080),
  /** Express `trust proxy`: `true`, a hop count, or a list of addresses/subnets. Unset: trust nobody. */
  TRUST_PROXY: env.optionalString(),
  ...logConfigShape,
  ...listenConfigShape,

  ...databaseConfigShape(GATEWAY_SCHEMA),

  // Redis: shared rate limits and the key cache. Optional at run time (see README).
  REDIS_URL: env.url(['redis', 'rediss'], 'redis://127.0.0.1:6379'),
  REDIS_KEY_PREFIX: env.string('preflight:'),

  // Credentials
  /** The bootstrap operator token for /admin/v1 (operator tokens `opr_…` are created through the admin API). */
  ADMIN_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    // A bearer of that shape is read as a console token (auth/member-token.ts), never compared with this one.
    .refine((token) => !looksLikeServiceToken(token), 'must not look like a JWT (three dot-separated base64url parts): that shape is a console member token'),
  /**
   * The public keys of service tokens (`service:kid:base64,…`, the ring every service trusts):
   * the gateway checks with it the console's tokens acting for a signed-in member on /admin/v1.
   */
  SERVICE_AUTH_PUBLIC_KEYS: serviceAuthConfigShape('gateway').SERVICE_AUTH_PUBLIC_KEYS,
  /** Which prefix new keys get unless the caller asks: `svc_live_` or `svc_test_`. */
  API_KEY_ENVIRONMENT: env.oneOf(['live', 'test'], 'test'),

  // Per-key rate limit on /api/v1
  RATE_LIMIT_MAX: env.int(600, { min: 1 }),
  RATE_LIMIT_WINDOW_SECONDS: env.int(60, { min: 1 }),

  // Per-operator-token rate limit on /admin/v1, and the lockout of addresses guessing tokens
  ADMIN_RATE_LIMIT_MAX: env.int(1_200, { min: 1 }),
  ADMIN_RATE_LIMIT_WINDOW_SECONDS: env.int(60, { min: 1 }),
  /** Wrong operator tokens one address may send per window before all its admin calls get 429. */
  ADMIN_AUTH_FAILURES_MAX: env.int(10, { min: 1 }),
  ADMIN_AUTH_FAILURE_WINDOW_SECONDS: env.int(60, { min: 1 }),
  /** Days an admin audit log entry is kept (an hourly sweep deletes older ones); 0 keeps them forever. */
  AUDIT_LOG_RETENTION_DAYS: env.int(365, { min: 0 }),

  // Per-connection rate limit on the unauthenticated inbound hooks (/integrations/v1/hooks/:connectionId)
  /** Hooks one connection id may receive per window; the trackers' bursts (bulk closes) stay well under it. */
  HOOK_RATE_LIMIT_MAX: env.int(1_200, { min: 1 }),
  HOOK_RATE_LIMIT_WINDOW_SECONDS: env.int(60, { min: 1 }),

  // Idempotency-Key on POSTs (docs/api.md, "Idempotent retries")
  /** How long a finished request's answer is replayed for its key. */
  IDEMPOTENCY_TTL_SECONDS: env.int(86_400, { min: 1 }),
  /** How long a duplicate waits for the first request with its key, then 409. */
  IDEMPOTENCY_WAIT_MS: env.int(15_000, { min: 1 }),
  /**
   * How long a key stays claimed by a request in flight: longer than any request can run
   * (queue 5 s + upstream 15 s + its body 15 s), so only a replica that died leaves one behind.
   */
  IDEMPOTENCY_LOCK_TTL_MS: env.int(60_000, { min: 1 }),
  /** Largest answer kept for replay; a larger one is not replayed (409), never run twice. */
  IDEMPOTENCY_MAX_RESPONSE_BYTES: env.int(64 * 1024, { min: 1 }),

  // Upstream services
  CAMPAIGN_URL: env.url(['http', 'https'], 'http://127.0.0.1:8081'),
  ISSUE_URL: env.url(['http', 'https'], 'http://127.0.0.1:8082'),
  WEBHOOK_URL: env.url(['http', 'https'], 'http://127.0.0.1:8083'),
  DELIVERY_URL: env.url(['http', 'https'], 'http://127.0.0.1:8084'),
  /** The integration service: chat and tracker connections, issue links, the trackers' inbound hooks. */
  INTEGRATION_URL: env.url(['http', 'https'], 'http://127.0.0.1:8085'),
  /** The console service: its pages under /console (passed through), and the members and invitations admin API. */
  CONSOLE_URL: env.url(['http', 'https'], 'http://127.0.0.1:8086'),
  /** How long an upstream gets to start answering (and between body chunks). */
  UPSTREAM_TIMEOUT_MS: env.int(15_000, { min: 1 }),
  /** Connections per upstream; requests beyond them queue (docs/reliability.md). */
  UPSTREAM_CONNECTIONS: env.int(128, { min: 1, max: 1024 }),
  /** How long a request may wait for a connection to its upstream before a 503. */
  UPSTREAM_QUEUE_TIMEOUT_MS: env.int(5_000, { min: 1 }),

  // Hostile or slow clients (docs/reliability.md)
  /** How long a client gets to send a request body whole before a 408. */
  REQUEST_BODY_TIMEOUT_MS: env.int(10_000, { min: 1 }),
  /**
   * Requests one API key may have in flight at once; beyond it, 429 with `Retry-After: 1`.
   * Half of UPSTREAM_CONNECTIONS, and above the 50 concurrent creates the acceptance tests make.
   */
  KEY_CONCURRENCY_MAX: env.int(64, { min: 1 }),
};

export type GatewayConfig = z.infer<z.ZodObject<typeof gatewayEnv>>;

export function loadGatewayConfig(source?: Record<string, string | undefined>, exitOnError = true): GatewayConfig {
  return loadConfig(gatewayEnv, { source, exitOnError });
}

/** `TRUST_PROXY` as express understands it. */
export function trustProxySetting(value: string | undefined): boolean | number | string | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
