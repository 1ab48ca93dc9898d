import { sql, type Kysely } from '@preflight/db';

/**
 * What the issue lists need at any size (docs/issue-lists.md): per-campaign counts of issues by
 * severity and status, so a page's total and its starting key come from a few rows instead of a
 * count over the campaign; and an index for the status filter (alone or with severity) in the
 * list's order.
 *
 * The counts are kept by statement triggers on `issues`, so every writer keeps them, whatever its
 * version: during a rolling upgrade the replicas still running the previous code file issues and
 * change statuses too. Each statement adds its net change per (campaign, severity, status) in one
 * upsert sorted by that key, so the rows are locked in one order and concurrent writers queue
 * instead of deadlocking (a create holds its campaign's sequence row first, issues.ts).
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
  // No write may slip in between the count and the triggers: both commit with this lock held.
  await sql`lock table issues in share mode`.execute(db);
  await sql`
    insert into issue_counts (campaign_id, severity_rank, status, n)
    select campaign_id, severity_rank, status, count(*) from issues group by campaign_id, severity_rank, status
  `.execute(db);
  for (const [op, rows] of [
    ['insert', `select campaign_id, severity_rank, status, 1 as d from new_issues`],
    ['update', `select campaign_id, severity_rank, status, 1 as d from new_issues union all select campaign_id, severity_rank, status, -1 from old_issues`],
    ['delete', `select campaign_id, severity_rank, status, -1 as d from old_issues`],
  ] as const) {
    await sql
      .raw(
        `create function issue_counts_after_${op}() returns trigger language plpgsql as $$
        begin
          insert into issue_counts (campaign_id, severity_rank, status, n)
          select campaign_id, severity_rank, status, sum(d) from (${rows}) as moved
          group by campaign_id, severity_rank, status having sum(d) <> 0
          order by campaign_id, severity_rank, status
          on conflict (campaign_id, severity_rank, status) do update set n = issue_counts.n + excluded.n;
          return null;
        end $$`,
      )
      .execute(db);
    const tables = { insert: 'new table as new_issues', update: 'old table as old_issues new table as new_issues', delete: 'old table as old_issues' }[op];
    await sql.raw(`create trigger issue_counts_${op} after ${op} on issues referencing ${tables} for each statement execute function issue_counts_after_${op}()`).execute(db);
  }
  await db.schema
    .createIndex('issues_campaign_status_severity_seq_idx')
    .on('issues')
    .columns(['campaign_id', 'status', 'severity_rank', 'seq_number'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('issues_campaign_status_severity_seq_idx').execute();
  for (const op of ['insert', 'update', 'delete']) {
    await sql.raw(`drop trigger issue_counts_${op} on issues`).execute(db);
    await sql.raw(`drop function issue_counts_after_${op}()`).execute(db);
  }
  await db.schema.dropTable('issue_counts').execute();
}
