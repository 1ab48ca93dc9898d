import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** `member_token_invalid`: a console token on /admin/v1 that does not verify or acts for no member. */
export type AuthFailureReason = 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired' | 'admin_token_invalid' | 'member_token_invalid';
/** What became of a POST carrying an Idempotency-Key (idempotency/). */
export type IdempotencyOutcome = 'executed' | 'stored' | 'replayed' | 'mismatch' | 'in_progress' | 'too_large' | 'not_stored' | 'unavailable';
export type UpstreamOutcome = 'success' | 'client_error' | 'server_error' | 'error' | 'timeout' | 'breaker_open' | 'queue_timeout';

/** The gateway's own metrics, on the process registry next to the HTTP ones from libs/http. */
export function gatewayMetrics(registry: Registry) {
  return {
    authFailures: new Counter({
      name: 'gateway_auth_failures_total',
      help: 'Requests refused with 401, by reason.',
      labelNames: ['reason'],
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'gateway_rate_limited_total',
      help: 'Requests refused with 429 by the per-key rate limit.',
      registers: [registry],
    }),
    concurrencyLimited: new Counter({
      name: 'gateway_key_concurrency_limited_total',
      help: 'Requests refused with 429 because their API key already had the most requests in flight.',
      registers: [registry],
    }),
    rateLimiterDegraded: new Gauge({
      name: 'gateway_rate_limiter_degraded',
      help: '1 while Redis is unreachable and each replica limits on its own, else 0.',
      registers: [registry],
    }),
    adminRateLimiterDegraded: new Gauge({
      name: 'gateway_admin_rate_limiter_degraded',
      help: '1 while Redis is unreachable and each replica limits operator tokens on its own, else 0.',
      registers: [registry],
    }),
    hookRateLimiterDegraded: new Gauge({
      name: 'gateway_hook_rate_limiter_degraded',
      help: '1 while Redis is unreachable and each replica limits inbound hooks per connection on its own, else 0.',
      registers: [registry],
    }),
    auditLogWriteFailures: new Counter({
      name: 'gateway_audit_log_write_failures_total',
      help: 'Admin writes whose audit log entry could not be stored (each is logged at error level with the entry).',
      registers: [registry],
    }),
    adminLockouts: new Counter({
      name: 'gateway_admin_lockouts_total',
      help: 'Admin requests refused with 429 because their address sent too many wrong operator tokens.',
      registers: [registry],
    }),
    idempotency: new Counter({
      name: 'gateway_idempotency_total',
      help: 'POSTs carrying an Idempotency-Key, by outcome.',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    upstreamRequests: new Counter({
      name: 'gateway_upstream_requests_total',
      help: 'Requests forwarded to an upstream service, by upstream and outcome.',
      labelNames: ['upstream', 'outcome'],
      registers: [registry],
    }),
    upstreamDuration: new Histogram({
      name: 'gateway_upstream_request_duration_seconds',
      help: 'Time until an upstream answered with headers, by upstream.',
      labelNames: ['upstream'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
      registers: [registry],
    }),
    breakerState: new Gauge({
      name: 'gateway_circuit_breaker_state',
      help: 'Circuit breaker per upstream: 0 closed, 1 half-open, 2 open.',
      labelNames: ['upstream'],
      registers: [registry],
    }),
  };
}

export type GatewayMetrics = ReturnType<typeof gatewayMetrics>;
