import { sql, type Kysely } from '@preflight/db';

/**
 * Console members write through the admin API too (issue 24): their audit entries name the
 * member (`actor_kind` 'member', `actor_id` the user's id). 0002 named its column check
 * inline, so Postgres called it `audit_log_actor_kind_check`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table audit_log
    drop constraint audit_log_actor_kind_check,
    add constraint audit_log_actor_kind_check check (actor_kind in ('bootstrap', 'operator-token', 'member'))`.execute(db);
}

/** Members' entries cannot stay under the old check: they go with it. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from audit_log where actor_kind = 'member'`.execute(db);
  await sql`alter table audit_log
    drop constraint audit_log_actor_kind_check,
    add constraint audit_log_actor_kind_check check (actor_kind in ('bootstrap', 'operator-token'))`.execute(db);
}
