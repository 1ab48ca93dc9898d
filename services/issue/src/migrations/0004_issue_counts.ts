import { sql, type Kysely } from '@preflight/db';

/**
 * What the issue lists need at any size (docs/issue-lists.md): per-campaign counts of issues by
 * severity and status, moved in the transaction of every create and status change, so a page's
 * total and its starting key come from a few rows instead of a count over the campaign; and an
 * index for the status filter (alone or with severity) in the list's order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('issue_counts')
    .addColumn('campaign_id', 'uuid', (c) => c.notNull())
    .addColumn('severity_rank', 'smallint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('issue_counts_pkey', ['campaign_id', 'severity_rank', 'status'])
    .execute();
  // The counts must match the issues when the migration commits: no create or status change
  // (of a replica still running the previous version) may slip in between the count and the commit.
  await sql`lock table issues in share mode`.execute(db);
  await sql`
    insert into issue_counts (campaign_id, severity_rank, status, n)
    select campaign_id, severity_rank, status, count(*) from issues group by campaign_id, severity_rank, status
  `.execute(db);
  await db.schema
    .createIndex('issues_campaign_status_severity_seq_idx')
    .on('issues')
    .columns(['campaign_id', 'status', 'severity_rank', 'seq_number'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('issues_campaign_status_severity_seq_idx').execute();
  await db.schema.dropTable('issue_counts').execute();
}
