import { sql, type Kysely, type Selectable, type Transaction } from '@preflight/db';
import type { ActivityTable, IntegrationDatabase } from './schema.ts';

export type ActivityRow = Selectable<ActivityTable>;

/** What happened to one call or hook: `succeeded`, `skipped`, `retrying`, `failed`. */
export type ActivityOutcome = 'succeeded' | 'skipped' | 'retrying' | 'failed';

export interface ActivityEntry {
  connectionId: string;
  direction: 'out' | 'in';
  issueId: string | null;
  action: string;
  outcome: ActivityOutcome;
  statusCode?: number | null;
  error?: string | null;
  externalKey?: string | null;
}

const MAX_ERROR = 1_000;

const rowOf = (entry: ActivityEntry) => ({
  connection_id: entry.connectionId,
  direction: entry.direction,
  issue_id: entry.issueId,
  action: entry.action,
  outcome: entry.outcome,
  status_code: entry.statusCode ?? null,
  error: entry.error ? entry.error.slice(0, MAX_ERROR) : null,
  external_key: entry.externalKey ?? null,
});

export async function recordActivity(db: Kysely<IntegrationDatabase>, entry: ActivityEntry): Promise<void> {
  await db.insertInto('activity').values(rowOf(entry)).execute();
}

/** Many entries in one statement (the worker's results). */
export async function recordActivities(db: Kysely<IntegrationDatabase> | Transaction<IntegrationDatabase>, entries: ActivityEntry[]): Promise<void> {
  if (entries.length > 0) await db.insertInto('activity').values(entries.map(rowOf)).execute();
}

/** Newest first. */
export async function listActivity(db: Kysely<IntegrationDatabase>, connectionId: string, limit: number): Promise<ActivityRow[]> {
  return db.selectFrom('activity').selectAll().where('connection_id', '=', connectionId).orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function pruneActivity(db: Kysely<IntegrationDatabase>, olderThanDays: number): Promise<number> {
  const result = await db.deleteFrom('activity').where('at', '<', sql<Date>`now() - ${`${olderThanDays} days`}::interval`).executeTakeFirst();
  return Number(result.numDeletedRows);
}
