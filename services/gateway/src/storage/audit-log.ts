import { sql, type Kysely } from '@preflight/db';
import type { AuditActorKind, IdentityDb } from './schema.ts';

export interface AuditEntry {
  /** When the gateway sent the answer (its clock; milliseconds). */
  at: Date;
  actor: { kind: AuditActorKind; id: string | null; name: string | null };
  method: string;
  path: string;
  status: number;
  orgId: string | null;
  traceId: string | null;
}

export type AuditRecord = AuditEntry;

export async function insertAuditEntry(db: Kysely<IdentityDb>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      at: entry.at,
      actor_kind: entry.actor.kind,
      actor_id: entry.actor.id,
      actor_name: entry.actor.name,
      method: entry.method,
      path: entry.path,
      status: entry.status,
      org_id: entry.orgId,
      trace_id: entry.traceId,
    })
    .execute();
}

/**
 * Newest first, strictly before `before` when given. Entries are kept to the millisecond, as
 * shown: a page never ends inside a millisecond that has more entries than it shows (they are
 * left for the next page, asked with `before` = the last `at` shown), unless the page would
 * otherwise be empty (more than `limit` entries in one millisecond: only then can paging by
 * `before` skip any).
 */
export async function listAuditEntries(db: Kysely<IdentityDb>, limit: number, before: Date | undefined): Promise<AuditRecord[]> {
  let query = db
    .selectFrom('audit_log')
    .select(['at', 'actor_kind', 'actor_id', 'actor_name', 'method', 'path', 'status', 'org_id', 'trace_id'])
    .orderBy(sql`at desc, id desc`)
    .limit(limit + 1);
  if (before) query = query.where('at', '<', before);
  const rows = await query.execute();
  let page = rows.slice(0, limit);
  const next = rows[limit];
  if (next && page.length > 0 && page.at(-1)!.at.getTime() === next.at.getTime()) {
    const trimmed = page.filter((r) => r.at.getTime() !== next.at.getTime());
    if (trimmed.length > 0) page = trimmed;
  }
  return page.map((r) => ({
    at: r.at,
    actor: { kind: r.actor_kind, id: r.actor_id, name: r.actor_name },
    method: r.method,
    path: r.path,
    status: r.status,
    orgId: r.org_id,
    traceId: r.trace_id,
  }));
}

/** Deletes entries older than `days`; returns how many. */
export async function deleteAuditEntriesOlderThan(db: Kysely<IdentityDb>, days: number): Promise<number> {
  const result = await db
    .deleteFrom('audit_log')
    .where('at', '<', sql<Date>`now() - make_interval(days => ${days})`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
