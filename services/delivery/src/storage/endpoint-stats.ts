import type { EndpointStats } from '@preflight/contract';
import { sql, type Kysely } from '@preflight/db';
import { BREAKER_OPEN_ERROR, NOT_STARTED_PREFIX } from '../domain/unsent.ts';
import type { DeliveryDatabase } from './schema.ts';

/**
 * Attempts (cancelled ones are none) and successes of the last 24 hours, response times of the
 * attempts that sent a request, and the last success and failure the log holds. Every id is
 * answered (zeros and nulls for an endpoint without attempts). Each endpoint is one range of
 * the log's (endpoint_id, attempted_at) index.
 */
export async function endpointStats(db: Kysely<DeliveryDatabase>, ids: readonly string[]): Promise<Record<string, EndpointStats>> {
  if (ids.length === 0) return {};
  const { rows } = await sql<{
    id: string;
    attempts: number;
    succeeded: number;
    p50: number | null;
    p99: number | null;
    last_success: Date | null;
    last_failure: Date | null;
  }>`
    select i.id, w.attempts, w.succeeded, w.p50, w.p99,
      (select a.attempted_at from delivery_attempts a where a.endpoint_id = i.id and a.outcome = 'delivered' order by a.attempted_at desc limit 1) as last_success,
      (select a.attempted_at from delivery_attempts a where a.endpoint_id = i.id and a.outcome in ('failed', 'refused') order by a.attempted_at desc limit 1) as last_failure
    from unnest(${[...ids]}::uuid[]) as i (id)
    cross join lateral (
      select count(*) filter (where a.outcome <> 'cancelled')::int as attempts,
        count(*) filter (where a.outcome = 'delivered')::int as succeeded,
        percentile_cont(0.5) within group (order by a.duration_ms) filter (where sent) as p50,
        percentile_cont(0.99) within group (order by a.duration_ms) filter (where sent) as p99
      from delivery_attempts a
      cross join lateral (select a.outcome in ('delivered', 'failed') and a.error is distinct from ${BREAKER_OPEN_ERROR}
        and coalesce(a.error, '') not like ${`${NOT_STARTED_PREFIX}%`} as sent) s
      where a.endpoint_id = i.id and a.attempted_at > now() - interval '24 hours'
    ) w`.execute(db);
  const out: Record<string, EndpointStats> = {};
  for (const r of rows) {
    out[r.id] = {
      attempts24h: r.attempts,
      succeeded24h: r.succeeded,
      p50Ms: r.p50 === null ? null : Math.round(r.p50),
      p99Ms: r.p99 === null ? null : Math.round(r.p99),
      lastSuccessAt: r.last_success ? new Date(r.last_success).toISOString() : null,
      lastFailureAt: r.last_failure ? new Date(r.last_failure).toISOString() : null,
    };
  }
  return out;
}
