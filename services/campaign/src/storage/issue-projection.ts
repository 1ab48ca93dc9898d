import { sql, type Kysely } from '@preflight/db';
import { EMPTY_ISSUE_STATS, type IssueSlot, type IssueState, type IssueStats } from '../domain/issue-stats.ts';
import type { CampaignDatabase } from './schema.ts';

/*
 * The readiness projection's rows: issue_projection (newest known state of each issue) and
 * campaign_issue_stats (per campaign, domain/issue-stats.ts). Everything here runs inside a
 * caller's transaction (the consumer's inbox transaction), so the projection, the verdict and
 * the inbox row commit together.
 */

/** What projecting an issue's events did to its row: nothing, or its slot before (none if new) and after. */
export type Projection = { changed: false } | { changed: true; before: IssueSlot | undefined; after: IssueSlot };

/**
 * Keeps each issue's state with the highest revision: an older or equal revision changes
 * nothing, so events may arrive in any order and any number of times. The one exception: a
 * severity (or tester e-mail) the projection does not know yet is taken from any revision (a
 * status change may arrive before the creation that carried it). An issue never moves to
 * another campaign, so the row keeps the campaign it was first projected under.
 *
 * Takes one state per issue (`mergeIssueStates`), all in one statement; answers, by lower-case
 * issue id, what changed. Run with the campaign's statistics row locked (`lockIssueStats`): no
 * other transaction changes this campaign's issues meanwhile, so the rows read as `before` are
 * the ones replaced.
 */
export async function projectIssues(trx: Kysely<CampaignDatabase>, issues: IssueState[]): Promise<Map<string, Projection>> {
  const out = new Map<string, Projection>();
  if (issues.length === 0) return out;
  const upserted = await projectStatement(issues).execute(trx);
  for (const row of upserted.rows) {
    const before = row.existed ? { severity: row.old_severity, status: row.old_status! } : undefined;
    out.set(row.issue_id.toLowerCase(), { changed: true, before, after: { severity: row.severity, status: row.status } });
  }
  for (const issue of issues) {
    const key = issue.issueId.toLowerCase();
    if (!out.has(key)) out.set(key, await fillIssue(trx, issue));
  }
  return out;
}

/**
 * The projection's one statement (its plan is checked in test/issue-projection-plan.test.ts).
 * The rows before are read one issue at a time by primary key (a lateral lookup the planner
 * cannot turn into a scan): as `in (select …)` it was a hash join over the whole table
 * whenever the statement's cached plan had been made while the table was small, every event
 * then reading every projected issue (29,000 rows, ~4 ms, in an integrations bench run).
 */
export function projectStatement(issues: readonly IssueState[]) {
  const column = <T>(pick: (i: IssueState) => T) => issues.map(pick);
  return sql<{ issue_id: string; existed: boolean; old_severity: string | null; old_status: string | null; severity: string | null; status: string }>`
    with input as (
      select * from unnest(
        ${column((i) => i.issueId)}::uuid[], ${column((i) => i.campaignId)}::uuid[], ${column((i) => i.orgId)}::uuid[],
        ${column((i) => i.severity)}::text[], ${column((i) => i.status)}::text[], ${column((i) => i.revision)}::integer[],
        ${column((i) => i.testerEmail)}::text[]
      ) as t(issue_id, campaign_id, org_id, severity, status, revision, tester_email)
    ),
    prev as (
      select p.issue_id, p.severity, p.status
        from input i
       cross join lateral (select p.issue_id, p.severity, p.status from issue_projection p where p.issue_id = i.issue_id limit 1) p
    ),
    up as (
      insert into issue_projection (issue_id, campaign_id, org_id, severity, status, revision, tester_email)
      select issue_id, campaign_id, org_id, severity, status, revision, tester_email from input
      on conflict (issue_id) do update set
        org_id = coalesce(excluded.org_id, issue_projection.org_id),
        severity = coalesce(excluded.severity, issue_projection.severity),
        status = excluded.status,
        revision = excluded.revision,
        tester_email = coalesce(excluded.tester_email, issue_projection.tester_email),
        updated_at = now()
      where issue_projection.revision < excluded.revision
      returning issue_id, severity, status
    )
    select up.issue_id, prev.issue_id is not null as existed, prev.severity as old_severity, prev.status as old_status, up.severity, up.status
    from up left join prev on prev.issue_id = up.issue_id`;
}

/** A stale revision may still carry the severity or tester e-mail the row lacks (rare: events out of order). */
async function fillIssue(trx: Kysely<CampaignDatabase>, issue: IssueState): Promise<Projection> {
  if (issue.severity === null && issue.testerEmail === null) return { changed: false };
  const filled = await sql<{ old_severity: string | null; severity: string | null; status: string }>`
    with prev as (select severity from issue_projection where issue_id = ${issue.issueId})
    update issue_projection set
      severity = coalesce(severity, ${issue.severity}),
      tester_email = coalesce(tester_email, ${issue.testerEmail}),
      updated_at = now()
    where issue_id = ${issue.issueId}
      and ((severity is null and ${issue.severity}::text is not null) or (tester_email is null and ${issue.testerEmail}::text is not null))
    returning (select severity from prev) as old_severity, severity, status`.execute(trx);
  const fill = filled.rows[0];
  if (!fill) return { changed: false };
  return { changed: true, before: { severity: fill.old_severity, status: fill.status }, after: { severity: fill.severity, status: fill.status } };
}

type StatsRow = { counts: Record<string, number>; open_count: number; open_hash_hi: string; open_hash_lo: string };
// The hashes are read as text: libs/db parses int8 into a JS number, which cannot hold 64 bits.
const STATS_COLUMNS = sql`counts, open_count, open_hash_hi::text as open_hash_hi, open_hash_lo::text as open_hash_lo`;

const statsOf = (row: StatsRow | undefined): IssueStats =>
  row ? { counts: row.counts, openCount: row.open_count, openHashHi: BigInt(row.open_hash_hi), openHashLo: BigInt(row.open_hash_lo) } : EMPTY_ISSUE_STATS;

/**
 * Locks the campaign's statistics row (creating it on the campaign's first issue) and returns
 * it. Every issue event of the campaign takes this lock before touching issue_projection, so
 * they apply one after the other and each sees the rows the previous one committed.
 */
export async function lockIssueStats(trx: Kysely<CampaignDatabase>, campaignId: string): Promise<IssueStats> {
  const locked = await sql<StatsRow>`select ${STATS_COLUMNS} from campaign_issue_stats where campaign_id = ${campaignId} for update`.execute(trx);
  if (locked.rows[0]) return statsOf(locked.rows[0]);
  const created = await sql<StatsRow>`
    insert into campaign_issue_stats (campaign_id) values (${campaignId})
    on conflict (campaign_id) do update set campaign_id = excluded.campaign_id
    returning ${STATS_COLUMNS}`.execute(trx);
  return statsOf(created.rows[0]);
}

export async function readIssueStats(trx: Kysely<CampaignDatabase>, campaignId: string): Promise<IssueStats> {
  const { rows } = await sql<StatsRow>`select ${STATS_COLUMNS} from campaign_issue_stats where campaign_id = ${campaignId}`.execute(trx);
  return statsOf(rows[0]);
}

export async function storeIssueStats(trx: Kysely<CampaignDatabase>, campaignId: string, stats: IssueStats): Promise<void> {
  await sql`
    update campaign_issue_stats set counts = ${JSON.stringify(stats.counts)}::jsonb, open_count = ${stats.openCount},
      open_hash_hi = ${stats.openHashHi.toString()}::bigint, open_hash_lo = ${stats.openHashLo.toString()}::bigint
    where campaign_id = ${campaignId}`.execute(trx);
}
