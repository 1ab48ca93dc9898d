import { sql, type Kysely } from '@preflight/db';
import { inboxMigration, outboxMigration } from '@preflight/bus';

/**
 * Domain events: the transactional outbox (events produced), the inbox (campaign events
 * consumed exactly once), the issue revision the events carry, and what the campaign
 * directory needs to apply campaign events in any order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await outboxMigration.up(db);
  await inboxMigration.up(db);

  // 1 at creation, +1 on every later change (status, assignee), in the change's transaction.
  // Existing issues: one per history entry (creation included); assignments made before this
  // column existed are not counted, which only matters for ordering events not yet emitted.
  await db.schema
    .alterTable('issues')
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await sql`
    update issues i set revision = greatest(1, (select count(*) from issue_history h where h.issue_id = i.id))
  `.execute(db);

  // The time of the newest source applied to a directory row (an event's occurred_at, or the
  // moment of a read-through): an older event never overwrites newer data. A status event may
  // arrive before CampaignCreated, so site and creation time can be unknown for a while; such a
  // row is not used to answer requests (storage/campaign-entries.ts) until they are filled in.
  await db.schema.alterTable('campaign_directory').addColumn('source_occurred_at', 'timestamptz').execute();
  await sql`update campaign_directory set source_occurred_at = refreshed_at`.execute(db);
  await sql`alter table campaign_directory alter column site_id drop not null, alter column created_at drop not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from campaign_directory where site_id is null or created_at is null`.execute(db);
  await sql`alter table campaign_directory alter column site_id set not null, alter column created_at set not null`.execute(db);
  await db.schema.alterTable('campaign_directory').dropColumn('source_occurred_at').execute();
  await db.schema.alterTable('issues').dropColumn('revision').execute();
  await inboxMigration.down?.(db);
  await outboxMigration.down?.(db);
}
