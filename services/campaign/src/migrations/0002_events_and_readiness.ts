import { inboxMigration, outboxMigration } from '@preflight/bus';
import { sql, type Kysely } from '@preflight/db';

/*
 * Domain events and readiness:
 * - `outbox` (events this service emits, written in the state change's transaction) and
 *   `inbox` (events it consumed, for dedupe) from @preflight/bus;
 * - `issue_projection`: the newest known state of each issue, from issue events;
 * - `launch_policies`: a campaign's thresholds when an operator changed them (no row = default);
 * - every campaign gets a verdict: the existing ones have no projected issues yet, so they
 *   are ReadyToLaunch and cleared, exactly what a new campaign starts with.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await outboxMigration.up(db);
  await inboxMigration.up(db);

  // Revision: the issue's own counter (1 at creation, +1 per change); only a higher one replaces
  // the row, which makes the projection indifferent to order and to repeats. No foreign key to
  // campaigns: an issue event may arrive for a campaign this schema does not hold.
  await db.schema
    .createTable('issue_projection')
    .addColumn('issue_id', 'uuid', (c) => c.primaryKey())
    .addColumn('campaign_id', 'uuid', (c) => c.notNull())
    .addColumn('org_id', 'uuid')
    .addColumn('severity', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index issue_projection_campaign on issue_projection (campaign_id)`.execute(db);

  const severity = sql`('Critical', 'High', 'Medium', 'Low', 'Trivial')`;
  await db.schema
    .createTable('launch_policies')
    .addColumn('campaign_id', 'uuid', (c) => c.primaryKey().references('campaigns.id'))
    .addColumn('do_not_launch_min_severity', 'text', (c) => c.notNull().check(sql`do_not_launch_min_severity in ${severity}`))
    .addColumn('do_not_launch_max_open', 'integer', (c) => c.notNull().check(sql`do_not_launch_max_open >= 0`))
    .addColumn('at_risk_min_severity', 'text', (c) => c.notNull().check(sql`at_risk_min_severity in ${severity}`))
    .addColumn('at_risk_max_open', 'integer', (c) => c.notNull().check(sql`at_risk_max_open >= 0`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await sql`update campaigns set readiness_level = 'ReadyToLaunch', gate = 'cleared' where readiness_level is null or gate is null`.execute(db);
  await sql`alter table campaigns alter column readiness_level set not null, alter column gate set not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table campaigns alter column readiness_level drop not null, alter column gate drop not null`.execute(db);
  await db.schema.dropTable('launch_policies').execute();
  await db.schema.dropTable('issue_projection').execute();
  await inboxMigration.down!(db);
  await outboxMigration.down!(db);
}
