import { sql, type Kysely } from '@preflight/db';

/**
 * A claim takes each connection's due jobs from its own part of this index, so a connection
 * whose backlog cannot run (no slot, breaker open) costs a claim one probe, not a walk
 * through all its due jobs in the shared due order. The due-order index goes: with it the
 * planner reads one connection's due jobs by walking all connections' in due order (it
 * cannot know the oldest are another connection's), and the due-jobs gauge counts as well
 * from this one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index jobs_pending_by_connection on jobs (connection_id, due_at) where state = 'pending'`.execute(db);
  await sql`drop index jobs_due`.execute(db);
}
