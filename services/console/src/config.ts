import { ConfigError, env, loadConfig } from '@preflight/config';
import { databaseConfigShape, listenConfigShape, logConfigShape } from '@preflight/service-kit';

/** Environment of the console service, read once at start (docs/console.md, "Configuration"). */
export const consoleConfigShape = {
  // HTTP: only the gateway calls this port (the pages under /console and the members API).
  CONSOLE_PORT: env.port(8086),

  // Database: users, memberships, invitations and OIDC identities, in schema `console`.
  ...databaseConfigShape('console'),

  // Redis: sessions, sign-in rate limits, OIDC state. Required: without it nobody can sign in.
  REDIS_URL: env.url(['redis', 'rediss'], 'redis://127.0.0.1:6379'),
  REDIS_KEY_PREFIX: env.string('preflight:'),

  /** The gateway's internal address: every action of a member is an admin API call through it. */
  GATEWAY_URL: env.url(['http', 'https'], 'http://127.0.0.1:8080'),
  /**
   * The origin browsers reach the console at (scheme, host, port; the gateway's public address).
   * Non-GET requests must come from it (Origin/Referer check); invitation links start with it.
   */
  CONSOLE_PUBLIC_ORIGIN: env.url(['http', 'https'], 'http://127.0.0.1:8080'),
  /** Express `trust proxy` for the client address (sign-in limits per address): the gateway is one hop. */
  CONSOLE_TRUST_PROXY: env.string('loopback, linklocal, uniquelocal'),

  // Sessions
  /** A session unused this long ends (8 h). */
  CONSOLE_SESSION_IDLE_SECONDS: env.int(8 * 3600, { min: 60, max: 30 * 86_400 }),
  /** A session ends this long after sign-in however much it is used (7 days). */
  CONSOLE_SESSION_ABSOLUTE_SECONDS: env.int(7 * 86_400, { min: 60, max: 90 * 86_400 }),
  /** How long an invitation link stays valid (7 days). */
  CONSOLE_INVITATION_TTL_SECONDS: env.int(7 * 86_400, { min: 60, max: 90 * 86_400 }),

  // Sign-in rate limits (failed attempts; a success clears the per-account count)
  /** Failed sign-ins per e-mail address and client address per window. */
  CONSOLE_SIGN_IN_MAX_PER_ACCOUNT: env.int(5, { min: 1 }),
  /** Sign-in attempts per client address per window, whatever the account. */
  CONSOLE_SIGN_IN_MAX_PER_ADDRESS: env.int(50, { min: 1 }),
  CONSOLE_SIGN_IN_WINDOW_SECONDS: env.int(15 * 60, { min: 1 }),

  // Single sign-on through OpenID Connect: on when OIDC_ISSUER_URL is set (with the client's id,
  // secret and redirect URL, `<CONSOLE_PUBLIC_ORIGIN>/console/sso/callback`).
  OIDC_ISSUER_URL: env.url(['https', 'http']).optional(),
  OIDC_CLIENT_ID: env.optionalString(),
  OIDC_CLIENT_SECRET: env.optionalString(),
  OIDC_REDIRECT_URL: env.url(['https', 'http']).optional(),
  /** The button's text on the sign-in page. */
  OIDC_LABEL: env.string('Sign in with single sign-on'),

  ...logConfigShape,
  ...listenConfigShape,
};

export type ConsoleConfig = ReturnType<typeof loadConsoleConfig>;

export function loadConsoleConfig(source: Record<string, string | undefined> = process.env, exitOnError = true) {
  const config = loadConfig(consoleConfigShape, { source, exitOnError });
  const oidc = [config.OIDC_ISSUER_URL, config.OIDC_CLIENT_ID, config.OIDC_CLIENT_SECRET, config.OIDC_REDIRECT_URL];
  if (oidc.some((v) => v !== undefined) && oidc.some((v) => v === undefined)) {
    const problem = 'configuration error: OIDC_ISSUER_URL, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and OIDC_REDIRECT_URL are set together or not at all';
    if (!exitOnError) throw new ConfigError([problem]);
    process.stderr.write(`${problem}\n`);
    process.exit(78); // EX_CONFIG, as loadConfig
  }
  // Compared with browsers' Origin headers: scheme, host and port only.
  return { ...config, CONSOLE_PUBLIC_ORIGIN: new URL(config.CONSOLE_PUBLIC_ORIGIN).origin };
}

/** Single sign-on's settings, when an SRE configured it. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUrl: string;
  label: string;
}

export function oidcSettings(config: ConsoleConfig): OidcSettings | undefined {
  if (!config.OIDC_ISSUER_URL || !config.OIDC_CLIENT_ID || !config.OIDC_CLIENT_SECRET || !config.OIDC_REDIRECT_URL) return undefined;
  return { issuer: config.OIDC_ISSUER_URL, clientId: config.OIDC_CLIENT_ID, clientSecret: config.OIDC_CLIENT_SECRET, redirectUrl: config.OIDC_REDIRECT_URL, label: config.OIDC_LABEL };
}
