import { sql, type Kysely } from '@preflight/db';
import { ISSUE_SEVERITIES, ISSUE_STATUSES, ISSUE_TYPES } from '@preflight/contract';

const oneOf = (values: readonly string[]) => sql.join(values.map((v) => sql.lit(v)));

export async function up(db: Kysely<unknown>): Promise<void> {
  // A copy of the campaigns issues are filed against: fed by campaign events, filled by a
  // read-through on a miss. Never the source of truth, so no foreign keys into it.
  await db.schema
    .createTable('campaign_directory')
    .addColumn('campaign_id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('status', 'text')
    .addColumn('site_id', 'uuid', (c) => c.notNull())
    .addColumn('site_name', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('refreshed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // One row per campaign; its row lock serialises concurrent creates so numbers stay gapless.
  await db.schema
    .createTable('campaign_sequences')
    .addColumn('campaign_id', 'uuid', (c) => c.primaryKey())
    .addColumn('last_seq', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('issues')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('campaign_id', 'uuid', (c) => c.notNull())
    .addColumn('seq_number', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('steps_to_reproduce', 'text')
    .addColumn('expected_behavior', 'text')
    .addColumn('actual_behavior', 'text')
    .addColumn('severity', 'text', (c) => c.notNull().check(sql`severity in (${oneOf(ISSUE_SEVERITIES)})`))
    .addColumn('severity_rank', 'smallint', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull().check(sql`type in (${oneOf(ISSUE_TYPES)})`))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in (${oneOf(ISSUE_STATUSES)})`))
    .addColumn('page_url', 'text')
    .addColumn('page_title', 'text')
    .addColumn('browser_name', 'text')
    .addColumn('browser_version', 'text')
    .addColumn('operating_system', 'text')
    .addColumn('device_type', 'text')
    .addColumn('screen_resolution', 'text')
    .addColumn('screenshot_url', 'text')
    .addColumn('assignee_name', 'text')
    .addColumn('tester_email', 'text')
    .addColumn('reporter', 'text', (c) => c.notNull())
    .addColumn('duplicate_of_id', 'uuid', (c) => c.references('issues.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('issues_campaign_seq_unique', ['campaign_id', 'seq_number'])
    .addCheckConstraint('issues_not_duplicate_of_itself', sql`duplicate_of_id <> id`)
    .execute();

  // The list order: most severe first, then filing order; also serves the campaign filter.
  await db.schema
    .createIndex('issues_campaign_severity_seq_idx')
    .on('issues')
    .columns(['campaign_id', 'severity_rank', 'seq_number'])
    .execute();

  await db.schema
    .createTable('issue_history')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('issue_id', 'uuid', (c) => c.notNull().references('issues.id').onDelete('cascade'))
    .addColumn('from_status', 'text')
    .addColumn('to_status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('issue_history_issue_idx').on('issue_history').columns(['issue_id', 'occurred_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['issue_history', 'issues', 'campaign_sequences', 'campaign_directory']) {
    await db.schema.dropTable(table).execute();
  }
}
