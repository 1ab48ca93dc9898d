import { sql, type Kysely } from '@preflight/db';

/*
 * Launch sign-off and testers (docs/readiness.md, "Report and sign-off"; README "Testers"):
 * - campaigns get the report: `report_version` (1 at creation, +1 whenever the readiness level
 *   or the set of open issues changes), `report_open_digest` (md5 of the sorted open issue ids,
 *   how a change of the set is noticed), and the seal of the current version (`seal_state`,
 *   `sealed_version`, `seal_decision`);
 * - `campaign_signers` (each one required) and `report_entries` (a stamp or a waiver of one
 *   signer on one version; at most one per signer and version);
 * - `issue_projection.tester_email`, to count the issues a tester reported;
 * - `campaign_tasks`, `campaign_testers` and `tester_task_completions`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('campaigns')
    .addColumn('report_version', 'integer', (c) => c.notNull().defaultTo(1).check(sql`report_version >= 1`))
    .addColumn('report_open_digest', 'text', (c) => c.notNull().defaultTo(sql`md5('')`))
    .addColumn('seal_state', 'text', (c) => c.notNull().defaultTo('open').check(sql`seal_state in ('open', 'sealed')`))
    .addColumn('sealed_version', 'integer')
    .addColumn('seal_decision', 'text', (c) => c.check(sql`seal_decision in ('approve', 'reject')`))
    .execute();
  await sql`alter table campaigns add constraint campaigns_seal_consistent check (
    (seal_state = 'open' and sealed_version is null and seal_decision is null)
    or (seal_state = 'sealed' and sealed_version is not null and seal_decision is not null))`.execute(db);

  await db.schema.alterTable('issue_projection').addColumn('tester_email', 'text').execute();
  await sql`create index issue_projection_campaign_tester on issue_projection (campaign_id, lower(tester_email)) where tester_email is not null`.execute(db);

  // The open set of existing campaigns as of now (the statuses that close an issue, frozen here).
  await sql`
    update campaigns c set report_open_digest = d.digest
    from (
      select campaign_id, md5(string_agg(issue_id::text, ',' order by issue_id)) as digest
      from issue_projection
      where status not in ('Closed', 'WontFix', 'Duplicate', 'RetestFixed')
      group by campaign_id
    ) d
    where d.campaign_id = c.id`.execute(db);

  await db.schema
    .createTable('campaign_signers')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('campaign_id', 'uuid', (c) => c.notNull().references('campaigns.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index campaign_signers_campaign on campaign_signers (campaign_id, created_at, id)`.execute(db);
  // One person signs a campaign's report once.
  await sql`create unique index campaign_signers_email on campaign_signers (campaign_id, lower(email))`.execute(db);

  await db.schema
    .createTable('report_entries')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('campaign_id', 'uuid', (c) => c.notNull().references('campaigns.id'))
    .addColumn('signer_id', 'uuid', (c) => c.notNull().references('campaign_signers.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('stamp', 'waiver')`))
    .addColumn('decision', 'text', (c) => c.check(sql`decision in ('approve', 'reject')`))
    .addColumn('note', 'text')
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addUniqueConstraint('report_entries_one_per_signer_version', ['signer_id', 'version'])
    .execute();
  await sql`alter table report_entries add constraint report_entries_decision_of_kind check ((kind = 'stamp') = (decision is not null))`.execute(db);
  await sql`create index report_entries_campaign on report_entries (campaign_id, version, at)`.execute(db);

  await db.schema
    .createTable('campaign_tasks')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('campaign_id', 'uuid', (c) => c.notNull().references('campaigns.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('required', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index campaign_tasks_campaign on campaign_tasks (campaign_id, created_at, id)`.execute(db);

  await db.schema
    .createTable('campaign_testers')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('campaign_id', 'uuid', (c) => c.notNull().references('campaigns.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('preview', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('Invited').check(sql`status in ('Invited', 'Started', 'Completed')`))
    .addColumn('verdict', 'text')
    .addColumn('completed_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index campaign_testers_campaign on campaign_testers (campaign_id, created_at, id)`.execute(db);

  await db.schema
    .createTable('tester_task_completions')
    .addColumn('campaign_tester_id', 'uuid', (c) => c.notNull().references('campaign_testers.id'))
    .addColumn('task_id', 'uuid', (c) => c.notNull().references('campaign_tasks.id'))
    .addColumn('verdict', 'text')
    .addColumn('completed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addPrimaryKeyConstraint('tester_task_completions_pk', ['campaign_tester_id', 'task_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('tester_task_completions').execute();
  await db.schema.dropTable('campaign_testers').execute();
  await db.schema.dropTable('campaign_tasks').execute();
  await db.schema.dropTable('report_entries').execute();
  await db.schema.dropTable('campaign_signers').execute();
  await sql`drop index if exists issue_projection_campaign_tester`.execute(db);
  await db.schema.alterTable('issue_projection').dropColumn('tester_email').execute();
  await sql`alter table campaigns drop constraint campaigns_seal_consistent`.execute(db);
  await db.schema
    .alterTable('campaigns')
    .dropColumn('seal_decision')
    .dropColumn('sealed_version')
    .dropColumn('seal_state')
    .dropColumn('report_open_digest')
    .dropColumn('report_version')
    .execute();
}
