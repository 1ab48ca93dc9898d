import { sql, type Kysely } from '@preflight/db';

// Migrations run with search_path set to the service's schema, so names stay unqualified.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sites')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index sites_org_newest on sites (org_id, created_at desc, id desc)`.execute(db);

  await db.schema
    .createTable('campaigns')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('site_id', 'uuid', (c) => c.notNull().references('sites.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('Draft', 'Active', 'Paused', 'Closed')`))
    .addColumn('readiness_level', 'text', (c) =>
      c.check(sql`readiness_level in ('ReadyToLaunch', 'ReadyWithIssues', 'AtRisk', 'DoNotLaunch')`),
    )
    .addColumn('gate', 'text', (c) => c.check(sql`gate in ('cleared', 'awaiting-signoff', 'not-cleared')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // Serves every list: one organisation's campaigns, newest first, id breaking ties.
  await sql`create index campaigns_org_newest on campaigns (org_id, created_at desc, id desc)`.execute(db);
  await sql`create index campaigns_site on campaigns (site_id)`.execute(db);

  await db.schema
    .createTable('campaign_status_history')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('campaign_id', 'uuid', (c) => c.notNull().references('campaigns.id'))
    .addColumn('from_status', 'text', (c) => c.notNull())
    .addColumn('to_status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index campaign_status_history_campaign on campaign_status_history (campaign_id, occurred_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('campaign_status_history').execute();
  await db.schema.dropTable('campaigns').execute();
  await db.schema.dropTable('sites').execute();
}
