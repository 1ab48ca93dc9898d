import CircuitBreaker from 'opossum';
import { Pool, type Dispatcher } from 'undici';
import type { Caller } from '@preflight/http';
import type { Logger } from '@preflight/log';
import type { ServiceTokens } from '@preflight/service-auth';
import type { GatewayConfig } from '../config.ts';
import { Slots } from '../limits/slots.ts';
import type { GatewayMetrics } from '../metrics.ts';

/**
 * The services the gateway forwards to. Adding one: a name here, its URL in config. The console
 * gets its admin endpoints (members, invitations) and, passed through, its pages (console-pages.ts).
 */
export const UPSTREAM_NAMES = ['campaign', 'issue', 'webhook', 'delivery', 'integration', 'console'] as const;
export type UpstreamName = (typeof UPSTREAM_NAMES)[number];

export type UpstreamRequest = Omit<Dispatcher.RequestOptions, 'origin'>;
export type UpstreamResponse = Dispatcher.ResponseData;

export interface Upstream {
  name: UpstreamName;
  /** One per pooled connection: a request holds one from before it is sent until it is relayed. */
  slots: Slots;
  /** Sends through this upstream's breaker; rejects with code EOPENBREAKER while it is open. */
  request(opts: UpstreamRequest, callerAborted: () => boolean): Promise<UpstreamResponse>;
  /** The `Authorization` of a call to this service for `caller`: the gateway's signed token, reused while fresh. */
  authorization(caller: Caller | undefined): Promise<string>;
  close(): Promise<void>;
}

const BREAKER_STATE = { closed: 0, halfOpen: 1, open: 2 } as const;

export interface BreakerOptions {
  /** Failures (connection errors, timeouts) as a percentage of calls that open the breaker. */
  errorThresholdPercentage: number;
  /** Calls in the rolling window before the percentage is considered at all. */
  volumeThreshold: number;
  rollingCountTimeoutMs: number;
  /**
   * How long the breaker stays open before one trial call is let through (half-open): a
   * trial that gets an answer closes it, a failed one opens it again for as long.
   */
  resetTimeoutMs: number;
}

/**
 * Open for 1 s at a time: a restarted service takes traffic again at most ~1 s after it is
 * ready (10 s had doubled a 6 s restart outage), and a dead one costs one refused connection
 * per second. Callers are told `Retry-After: 1` meanwhile.
 */
export const DEFAULT_BREAKER: BreakerOptions = {
  errorThresholdPercentage: 50,
  volumeThreshold: 5,
  rollingCountTimeoutMs: 10_000,
  resetTimeoutMs: 1_000,
};

function upstreamUrl(config: GatewayConfig, name: UpstreamName): string {
  const urls = {
    campaign: config.CAMPAIGN_URL,
    issue: config.ISSUE_URL,
    webhook: config.WEBHOOK_URL,
    delivery: config.DELIVERY_URL,
    integration: config.INTEGRATION_URL,
    console: config.CONSOLE_URL,
  } satisfies Record<UpstreamName, string>;
  return urls[name];
}

/**
 * One keep-alive pool and one circuit breaker per upstream. The breaker counts only failures
 * to get an answer (refused connections, resets, timeouts): a 4xx or 5xx is an answer, and a
 * caller hanging up is the caller's doing, so neither opens it.
 */
export function createUpstreams(
  config: GatewayConfig,
  metrics: GatewayMetrics,
  logger: Logger,
  tokens: Pick<ServiceTokens, 'authorization'>,
  breakerOptions: BreakerOptions = DEFAULT_BREAKER,
): Record<UpstreamName, Upstream> {
  const make = (name: UpstreamName): Upstream => {
    const origin = new URL(upstreamUrl(config, name)).origin;
    const pool = new Pool(origin, {
      connections: config.UPSTREAM_CONNECTIONS,
      keepAliveTimeout: 30_000,
      connectTimeout: Math.min(config.UPSTREAM_TIMEOUT_MS, 5_000),
      headersTimeout: config.UPSTREAM_TIMEOUT_MS,
      bodyTimeout: config.UPSTREAM_TIMEOUT_MS,
    });
    const breaker = new CircuitBreaker(
      async (opts: UpstreamRequest, callerAborted: () => boolean) => {
        try {
          return await pool.request(opts);
        } catch (err) {
          if (callerAborted() && typeof err === 'object' && err !== null) Object.assign(err, { callerAborted: true });
          throw err;
        }
      },
      {
        // undici's own timeouts bound the call; opossum's would leave the request running.
        timeout: false,
        errorThresholdPercentage: breakerOptions.errorThresholdPercentage,
        volumeThreshold: breakerOptions.volumeThreshold,
        rollingCountTimeout: breakerOptions.rollingCountTimeoutMs,
        resetTimeout: breakerOptions.resetTimeoutMs,
        errorFilter: (err: { callerAborted?: boolean }) => err?.callerAborted === true,
        // The breaker needs only its counts. Latency percentiles keep every call's time for the
        // rolling window, and the snapshot sorts them all every second: a stall on the loop.
        rollingPercentilesEnabled: false,
        enableSnapshots: false,
      },
    );
    metrics.breakerState.set({ upstream: name }, BREAKER_STATE.closed);
    breaker.on('open', () => {
      metrics.breakerState.set({ upstream: name }, BREAKER_STATE.open);
      logger.warn({ upstream: name }, 'circuit breaker opened');
    });
    breaker.on('halfOpen', () => metrics.breakerState.set({ upstream: name }, BREAKER_STATE.halfOpen));
    breaker.on('close', () => {
      metrics.breakerState.set({ upstream: name }, BREAKER_STATE.closed);
      logger.info({ upstream: name }, 'circuit breaker closed');
    });
    return {
      name,
      slots: new Slots(config.UPSTREAM_CONNECTIONS),
      request: (opts, callerAborted) => breaker.fire(opts, callerAborted),
      authorization: (caller) => tokens.authorization(name, caller),
      close: async () => {
        breaker.shutdown();
        await pool.close();
      },
    };
  };
  return Object.fromEntries(UPSTREAM_NAMES.map((name) => [name, make(name)])) as Record<UpstreamName, Upstream>;
}
