import { sql, type Kysely } from '@preflight/db';

/*
 * Per-campaign issue statistics, maintained by the readiness consumer in the transaction that
 * replaces an issue's projection row (storage/issue-projection.ts), so a recompute reads one row
 * instead of scanning every issue of the campaign twice (a group-by and an md5 of the sorted
 * open ids), which grew with the campaign:
 * - `counts`: how many projected issues are in each (severity, status) pair, as
 *   {"<severity>/<status>": n}, the severity empty while unknown;
 * - `open_count` and `open_hash_hi`/`open_hash_lo`: the size and the XOR of md5(issue id) (as two
 *   signed 64-bit halves) of the set of open issues. XOR is order-free and its own inverse, so an
 *   issue entering or leaving the set is one XOR, and the digest of the set
 *   (`campaigns.report_open_digest`) changes whenever the set does.
 * The row is also the lock that serialises the events of one campaign's issues.
 *
 * Existing campaigns: stats from the projection as it is, and their stored digest rewritten in
 * the new form (it always equals the digest of the current open set: every projection change
 * recomputes in its own transaction). The statuses that close an issue are frozen here, as in 0003.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('campaign_issue_stats')
    .addColumn('campaign_id', 'uuid', (c) => c.primaryKey())
    .addColumn('counts', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('open_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('open_hash_hi', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('open_hash_lo', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  const open = sql`status not in ('Closed', 'WontFix', 'Duplicate', 'RetestFixed')`;
  await sql`
    insert into campaign_issue_stats (campaign_id, counts, open_count, open_hash_hi, open_hash_lo)
    select campaign_id,
      coalesce((select jsonb_object_agg(k, n) from (
        select coalesce(p2.severity, '') || '/' || p2.status as k, count(*) as n
        from issue_projection p2 where p2.campaign_id = p.campaign_id group by 1) g), '{}'::jsonb),
      count(*) filter (where ${open}),
      coalesce(bit_xor(('x' || substr(md5(issue_id::text), 1, 16))::bit(64)::bigint) filter (where ${open}), 0),
      coalesce(bit_xor(('x' || substr(md5(issue_id::text), 17, 16))::bit(64)::bigint) filter (where ${open}), 0)
    from issue_projection p
    group by campaign_id`.execute(db);

  // Same form as openSetDigest() in domain/issue-stats.ts; an empty set keeps md5('').
  await sql`
    update campaigns c set report_open_digest = 'xor:' || s.open_count || ':' || s.open_hash_hi || ':' || s.open_hash_lo
    from campaign_issue_stats s
    where s.campaign_id = c.id and s.open_count > 0`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    update campaigns c set report_open_digest = coalesce((
      select md5(string_agg(issue_id::text, ',' order by issue_id)) from issue_projection p
      where p.campaign_id = c.id and p.status not in ('Closed', 'WontFix', 'Duplicate', 'RetestFixed')), md5(''))`.execute(db);
  await db.schema.dropTable('campaign_issue_stats').execute();
}
