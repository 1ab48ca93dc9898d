import { sql, type Kysely } from '@preflight/db';
import { recordActivitiesStatement, type ActivityEntry } from './activity.ts';
import { connectionHealthStatement, type HealthChange } from './connections.ts';
import { settleJobsStatement, type JobSettlement } from './jobs.ts';
import type { IntegrationDatabase } from './schema.ts';
import type { Statement } from './statement.ts';

/**
 * Writes what a batch of tries left behind — the jobs' next states, their activity entries and
 * the connections' health changes — as one statement (data-modifying CTEs): atomic without a
 * transaction held open across round trips, and one round trip for the whole batch.
 */
export async function writeTryResults(
  db: Kysely<IntegrationDatabase>,
  batch: { settlements: readonly JobSettlement[]; activities: readonly ActivityEntry[]; health: readonly HealthChange[] },
): Promise<void> {
  const parts: Statement[] = [];
  if (batch.settlements.length > 0) parts.push(settleJobsStatement(batch.settlements));
  if (batch.activities.length > 0) parts.push(recordActivitiesStatement(batch.activities));
  if (batch.health.length > 0) parts.push(connectionHealthStatement(batch.health));
  if (parts.length === 0) return;
  const ctes = parts.map((part, i) => sql`${sql.raw(`w${i}`)} as (${part})`);
  await sql`with ${sql.join(ctes)} select 1`.execute(db);
}
