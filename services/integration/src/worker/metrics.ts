import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { sql, type Kysely } from '@preflight/db';
import type { IntegrationDatabase } from '../storage/schema.ts';

/** The worker's metrics (docs/operations.md, "Integration service"); built once per registry. */
export function workerMetrics(registry: Registry, db: Kysely<IntegrationDatabase>) {
  const existing = registry.getSingleMetric('integration_jobs_total');
  if (existing) {
    return {
      jobs: existing as Counter<'action' | 'outcome'>,
      callSeconds: registry.getSingleMetric('integration_call_duration_seconds') as Histogram<'kind' | 'action'>,
      lag: registry.getSingleMetric('integration_job_lag_seconds') as Histogram<'action'>,
      claims: registry.getSingleMetric('integration_claims_total') as Counter<'result'>,
    };
  }
  const jobs = new Counter({
    name: 'integration_jobs_total',
    help: 'Integration jobs run, by action and outcome (succeeded, skipped, rate-limited, credentials, rejected, unavailable).',
    labelNames: ['action', 'outcome'],
    registers: [registry],
  });
  const callSeconds = new Histogram({
    name: 'integration_call_duration_seconds',
    help: 'Time of one job run (provider calls included), by connection kind and action.',
    labelNames: ['kind', 'action'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const lag = new Histogram({
    name: 'integration_job_lag_seconds',
    help: 'From a job being queued to a try of it starting, by action.',
    labelNames: ['action'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 120, 600, 3600],
    registers: [registry],
  });
  const claims = new Counter({
    name: 'integration_claims_total',
    help: 'Claims of due jobs (one statement each), by result: took (at least one job) or empty.',
    labelNames: ['result'],
    registers: [registry],
  });
  new Gauge({
    name: 'integration_jobs_due',
    help: 'Jobs waiting whose time has come, of connections that are live, unpaused and not waiting for credentials (every replica sees the same number).',
    registers: [registry],
    async collect() {
      const row = await sql<{ n: string }>`
        select count(*) as n from jobs j join connections c on c.id = j.connection_id
         where j.state = 'pending' and j.due_at <= now() and c.deleted_at is null and not c.paused and c.status <> 'needs-attention'`
        .execute(db)
        .catch(() => undefined);
      if (row) this.set(Number(row.rows[0]?.n ?? 0));
    },
  });
  new Gauge({
    name: 'integration_connections_needing_attention',
    help: 'Connections whose provider refused their credentials (nothing is sent until they are replaced).',
    registers: [registry],
    async collect() {
      const row = await sql<{ n: string }>`select count(*) as n from connections where status = 'needs-attention' and deleted_at is null`.execute(db).catch(() => undefined);
      if (row) this.set(Number(row.rows[0]?.n ?? 0));
    },
  });
  return { jobs, callSeconds, lag, claims };
}
