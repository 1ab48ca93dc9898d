import { sql, type Kysely, type Selectable } from '@preflight/db';
import type { Statement } from './statement.ts';
import type { ActivityOutcome, ActivityTable, Camel, IntegrationDatabase } from './schema.ts';

export type ActivityRow = Camel<Selectable<ActivityTable>>;


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

/** The insert of many entries (a part of the worker's results statement, storage/try-results.ts). */
export function recordActivitiesStatement(entries: readonly ActivityEntry[]): Statement {
  const rows = entries.map((entry) => {
    const r = rowOf(entry);
    return sql`(${r.connection_id}::uuid, ${r.direction}, ${r.issue_id}::uuid, ${r.action}, ${r.outcome}, ${r.status_code}::int, ${r.error}::text, ${r.external_key}::text)`;
  });
  return sql`insert into activity (connection_id, direction, issue_id, action, outcome, status_code, error, external_key) values ${sql.join(rows)}`;
}

/** Newest first. */
export async function listActivity(db: Kysely<IntegrationDatabase>, connectionId: string, limit: number): Promise<ActivityRow[]> {
  return db
    .selectFrom('activity')
    .select(['id', 'connection_id as connectionId', 'at', 'direction', 'issue_id as issueId', 'action', 'outcome', 'status_code as statusCode', 'error', 'external_key as externalKey'])
    .where('connection_id', '=', connectionId).orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function pruneActivity(db: Kysely<IntegrationDatabase>, olderThanDays: number): Promise<number> {
  const result = await db.deleteFrom('activity').where('at', '<', sql<Date>`now() - ${`${olderThanDays} days`}::interval`).executeTakeFirst();
  return Number(result.numDeletedRows);
}
