import { createHash } from 'node:crypto';
import { sql, type Kysely } from '@preflight/db';
import { createEvent, toTimestamp } from '@preflight/events';
import {
  DEFAULT_LAUNCH_POLICY,
  gateOf,
  isKnownSeverity,
  isOpenStatus,
  readinessLevelOf,
  sealDecision,
  type IssueCount,
  type LaunchPolicy,
  type SignOffDecision,
  type Verdict,
} from '../domain/launch-policy.ts';
import { enqueueCampaignEvent, type EventTarget } from './outbox.ts';
import type { CampaignDatabase, SealState } from './schema.ts';

/*
 * The readiness projection: issue events → issue_projection → the campaign's verdict.
 * Everything here runs inside a caller's transaction (the consumer's inbox transaction, or
 * the policy update's), so the projection, the verdict and the inbox row commit together.
 */

/** One issue's state as an issue event tells it. */
export interface IssueState {
  issueId: string;
  campaignId: string;
  orgId: string | null;
  severity: string | null;
  status: string;
  revision: number;
  /** IssueCreated carries it; status changes do not (null). */
  testerEmail: string | null;
}

/** One issue's place in its campaign's statistics: its severity and status, before or after a change. */
interface IssueSlot {
  severity: string | null;
  status: string;
}

/** What projecting an issue's events did to its row: nothing, or its slot before (none if new) and after. */
export type Projection = { changed: false } | { changed: true; before: IssueSlot | undefined; after: IssueSlot };

/**
 * One state per issue from several events of it (a batch may carry its creation and a status
 * change): the highest revision's status, and the severity and tester e-mail of any event that
 * has them (neither ever changes on an issue). Projecting the merged state leaves the row as
 * projecting each event in turn would.
 */
export function mergeIssueStates(states: IssueState[]): IssueState[] {
  const byIssue = new Map<string, IssueState>();
  for (const state of states) {
    const key = state.issueId.toLowerCase();
    const seen = byIssue.get(key);
    if (!seen) {
      byIssue.set(key, state);
      continue;
    }
    const newer = state.revision > seen.revision ? state : seen;
    const older = newer === state ? seen : state;
    byIssue.set(key, {
      ...newer,
      orgId: newer.orgId ?? older.orgId,
      severity: newer.severity ?? older.severity,
      testerEmail: newer.testerEmail ?? older.testerEmail,
    });
  }
  return [...byIssue.values()];
}

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
  const column = <T>(pick: (i: IssueState) => T) => issues.map(pick);
  const upserted = await sql<{ issue_id: string; existed: boolean; old_severity: string | null; old_status: string | null; severity: string | null; status: string }>`
    with input as (
      select * from unnest(
        ${column((i) => i.issueId)}::uuid[], ${column((i) => i.campaignId)}::uuid[], ${column((i) => i.orgId)}::uuid[],
        ${column((i) => i.severity)}::text[], ${column((i) => i.status)}::text[], ${column((i) => i.revision)}::integer[],
        ${column((i) => i.testerEmail)}::text[]
      ) as t(issue_id, campaign_id, org_id, severity, status, revision, tester_email)
    ),
    prev as (select p.issue_id, p.severity, p.status from issue_projection p where p.issue_id in (select issue_id from input)),
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
    from up left join prev on prev.issue_id = up.issue_id`.execute(trx);
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

/**
 * A campaign's issue statistics (migration 0004): issues per (severity, status), and the size
 * and XOR-of-md5 of its set of open issues. Kept in step with issue_projection by the readiness
 * consumer, so a recompute costs the same for ten issues as for a hundred thousand.
 */
export interface IssueStats {
  /** "<severity>/<status>" → issues; the severity part is empty while unknown. */
  counts: Record<string, number>;
  openCount: number;
  openHashHi: bigint;
  openHashLo: bigint;
}

const EMPTY_STATS: IssueStats = { counts: {}, openCount: 0, openHashHi: 0n, openHashLo: 0n };

type StatsRow = { counts: Record<string, number>; open_count: number; open_hash_hi: string; open_hash_lo: string };
// The hashes are read as text: libs/db parses int8 into a JS number, which cannot hold 64 bits.
const STATS_COLUMNS = sql`counts, open_count, open_hash_hi::text as open_hash_hi, open_hash_lo::text as open_hash_lo`;

const statsOf = (row: StatsRow | undefined): IssueStats =>
  row ? { counts: row.counts, openCount: row.open_count, openHashHi: BigInt(row.open_hash_hi), openHashLo: BigInt(row.open_hash_lo) } : EMPTY_STATS;

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

async function readIssueStats(trx: Kysely<CampaignDatabase>, campaignId: string): Promise<IssueStats> {
  const { rows } = await sql<StatsRow>`select ${STATS_COLUMNS} from campaign_issue_stats where campaign_id = ${campaignId}`.execute(trx);
  return statsOf(rows[0]);
}

const slotKey = (slot: IssueSlot) => `${slot.severity ?? ''}/${slot.status}`;

/** md5 of the issue id as two signed 64-bit halves, exactly as migration 0004 computes it in SQL. */
function idHash(issueId: string): [bigint, bigint] {
  const hex = createHash('md5').update(issueId.toLowerCase()).digest('hex');
  return [BigInt.asIntN(64, BigInt(`0x${hex.slice(0, 16)}`)), BigInt.asIntN(64, BigInt(`0x${hex.slice(16)}`))];
}

/** The statistics after one issue's row went from `before` to `after` (a pure function of the two). */
export function applyToStats(stats: IssueStats, issueId: string, before: IssueSlot | undefined, after: IssueSlot): IssueStats {
  const counts = { ...stats.counts };
  if (before) {
    const key = slotKey(before);
    const left = (counts[key] ?? 0) - 1;
    if (left > 0) counts[key] = left;
    else delete counts[key];
  }
  counts[slotKey(after)] = (counts[slotKey(after)] ?? 0) + 1;
  const wasOpen = before !== undefined && isOpenStatus(before.status);
  const isOpen = isOpenStatus(after.status);
  if (wasOpen === isOpen) return { ...stats, counts };
  const [hi, lo] = idHash(issueId);
  return {
    counts,
    openCount: stats.openCount + (isOpen ? 1 : -1),
    openHashHi: BigInt.asIntN(64, stats.openHashHi ^ hi),
    openHashLo: BigInt.asIntN(64, stats.openHashLo ^ lo),
  };
}

export async function storeIssueStats(trx: Kysely<CampaignDatabase>, campaignId: string, stats: IssueStats): Promise<void> {
  await sql`
    update campaign_issue_stats set counts = ${JSON.stringify(stats.counts)}::jsonb, open_count = ${stats.openCount},
      open_hash_hi = ${stats.openHashHi.toString()}::bigint, open_hash_lo = ${stats.openHashLo.toString()}::bigint
    where campaign_id = ${campaignId}`.execute(trx);
}

/** The campaign's issues grouped by (severity, status), as the launch policy takes them. */
function issueCounts(stats: IssueStats): IssueCount[] {
  return Object.entries(stats.counts).map(([key, count]) => {
    const slash = key.indexOf('/');
    const severity = key.slice(0, slash);
    return { severity: isKnownSeverity(severity) ? severity : null, status: key.slice(slash + 1), count };
  });
}

/** Empty set: md5(''), the column default of a new campaign. */
const EMPTY_OPEN_SET_DIGEST = 'd41d8cd98f00b204e9800998ecf8427e';

/** Stands for the set of open issue ids: differs whenever the set does (migration 0004 writes the same form). */
export function openSetDigest(stats: IssueStats): string {
  return stats.openCount === 0 ? EMPTY_OPEN_SET_DIGEST : `xor:${stats.openCount}:${stats.openHashHi}:${stats.openHashLo}`;
}

/** The columns of a launch_policies row, null where the campaign has none (a left join). */
interface PolicyColumns {
  do_not_launch_min_severity: LaunchPolicy['doNotLaunch']['minSeverity'] | null;
  do_not_launch_max_open: number | null;
  at_risk_min_severity: LaunchPolicy['atRisk']['minSeverity'] | null;
  at_risk_max_open: number | null;
}

/** The campaign's own policy from its row, or the default when it has none. */
function policyOf(row: PolicyColumns | undefined): LaunchPolicy {
  if (!row || row.do_not_launch_min_severity === null || row.do_not_launch_max_open === null || row.at_risk_min_severity === null || row.at_risk_max_open === null) {
    return DEFAULT_LAUNCH_POLICY;
  }
  return {
    doNotLaunch: { minSeverity: row.do_not_launch_min_severity, maxOpen: row.do_not_launch_max_open },
    atRisk: { minSeverity: row.at_risk_min_severity, maxOpen: row.at_risk_max_open },
  };
}

/** The campaign's policy: its own row, or the default. */
export async function loadPolicy(db: Kysely<CampaignDatabase>, campaignId: string): Promise<LaunchPolicy> {
  return policyOf(await db.selectFrom('launch_policies').selectAll().where('campaign_id', '=', campaignId).executeTakeFirst());
}

/** The report of a campaign's current version after a recompute. */
export interface ReportState {
  version: number;
  sealState: SealState;
  sealedVersion: number | null;
  decision: SignOffDecision | null;
  requiredCount: number;
  signedCount: number;
  waivedCount: number;
  /** This recompute made a new version (the level or the set of open issues changed). */
  newVersion: boolean;
  /** This recompute sealed the current version (and enqueued ReportSealed). */
  sealedNow: boolean;
}

/** Read with the campaign row (as json). */
interface SignerRow {
  id: string;
  name: string;
}
interface EntryRow {
  signer_id: string;
  kind: 'stamp' | 'waiver';
  decision: SignOffDecision | null;
  name: string;
}

export type Recompute = { outcome: 'missing' } | { outcome: 'changed' | 'unchanged'; verdict: Verdict; report: ReportState };

/**
 * Recomputes a campaign's readiness and its report, and stores what changed. Reads the issue
 * counts and the open set from the campaign's statistics row, never from the issues. Locks the
 * campaign row first, so concurrent recomputes of one campaign (issue events, a policy change,
 * stamps and waivers, signers added or removed) run one after the other and each sees what
 * the previous committed. `missing`: no such campaign.
 *
 * 1. The level, from the projected issues and the policy.
 * 2. The report version: +1 when the level or the set of open issue ids changed; a new
 *    version is unsealed (its entries start empty).
 * 3. The seal: the current version is sealed when the campaign has at least one signer and
 *    every signer has a stamp or a waiver on it; ReportSealed is enqueued at that moment, in
 *    this transaction. A sealed version whose signers are no longer all in (a signer was
 *    added) is unsealed.
 * 4. The gate, from the level and the seal (`gateOf`).
 * The outcome is `changed` when the level or the gate changed.
 */
export async function recomputeReadiness(
  trx: Kysely<CampaignDatabase>,
  campaignId: string,
  events: EventTarget,
  /** The campaign's issue statistics when the caller holds them already (the consumer, which just updated them). */
  known?: IssueStats,
): Promise<Recompute> {
  if (!trx.isTransaction) throw new Error('recomputeReadiness must run inside a transaction');
  // The campaign row, its policy, its signers and the entries on its current version in one
  // round trip; `for update of c` locks the campaign only.
  const campaign = await trx
    .selectFrom('campaigns as c')
    .leftJoin('launch_policies as p', 'p.campaign_id', 'c.id')
    .select([
      'c.org_id',
      'c.site_id',
      'c.name',
      'c.readiness_level',
      'c.gate',
      'c.report_version',
      'c.report_open_digest',
      'c.seal_state',
      'c.sealed_version',
      'c.seal_decision',
      'p.do_not_launch_min_severity',
      'p.do_not_launch_max_open',
      'p.at_risk_min_severity',
      'p.at_risk_max_open',
      sql<SignerRow[]>`(select coalesce(json_agg(json_build_object('id', s.id, 'name', s.name)), '[]') from campaign_signers s where s.campaign_id = c.id)`.as('signers'),
      sql<EntryRow[]>`(
        select coalesce(json_agg(json_build_object('signer_id', e.signer_id, 'kind', e.kind, 'decision', e.decision, 'name', s.name) order by e.at, e.id), '[]')
        from report_entries e join campaign_signers s on s.id = e.signer_id
        where e.campaign_id = c.id and e.version = c.report_version)`.as('entries'),
    ])
    .where('c.id', '=', campaignId)
    .forUpdate('c')
    .executeTakeFirst();
  if (!campaign) return { outcome: 'missing' };
  const policy = policyOf(campaign);
  const stats = known ?? (await readIssueStats(trx, campaignId));
  const readinessLevel = readinessLevelOf(policy, issueCounts(stats));
  const digest = openSetDigest(stats);

  // 2. A new version when the verdict or the open set changed; the new one starts unsealed.
  const newVersion = readinessLevel !== campaign.readiness_level || digest !== campaign.report_open_digest;
  const version = newVersion ? campaign.report_version + 1 : campaign.report_version;
  let seal: { version: number; decision: SignOffDecision } | null =
    !newVersion && campaign.seal_state === 'sealed' && campaign.sealed_version === version && campaign.seal_decision
      ? { version, decision: campaign.seal_decision }
      : null;

  // 3. Who signed the current version (a new version has no entries yet: a stamp or waiver
  // must name the version that is current when it is made).
  const signers = campaign.signers;
  const entries = newVersion ? [] : campaign.entries;
  const stamps = entries.filter((e) => e.kind === 'stamp' && e.decision !== null) as Array<EntryRow & { decision: SignOffDecision }>;
  const signed = new Set(entries.map((e) => e.signer_id));
  const complete = signers.length > 0 && signers.every((s) => signed.has(s.id));
  let sealedNow = false;
  if (complete && !seal) {
    seal = { version, decision: sealDecision(stamps) };
    sealedNow = true;
  } else if (!complete && seal) {
    seal = null; // a signer was added (or every signer removed): the version waits for them again
  }

  // 4. The gate.
  const gate = gateOf(readinessLevel, { required: signers.length, seal });
  const verdict: Verdict = { readinessLevel, gate };
  const report: ReportState = {
    version,
    sealState: seal ? 'sealed' : 'open',
    sealedVersion: seal?.version ?? null,
    decision: seal?.decision ?? null,
    requiredCount: signers.length,
    signedCount: stamps.length,
    waivedCount: entries.filter((e) => e.kind === 'waiver').length,
    newVersion,
    sealedNow,
  };

  const verdictChanged = readinessLevel !== campaign.readiness_level || gate !== campaign.gate;
  const sealChanged = report.sealState !== campaign.seal_state || report.sealedVersion !== campaign.sealed_version || report.decision !== campaign.seal_decision;
  if (verdictChanged || newVersion || sealChanged) {
    await trx
      .updateTable('campaigns')
      .set({
        readiness_level: readinessLevel,
        gate,
        report_version: version,
        report_open_digest: digest,
        seal_state: report.sealState,
        sealed_version: report.sealedVersion,
        seal_decision: report.decision,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', campaignId)
      .execute();
  }

  if (sealedNow && seal) {
    const site = await trx.selectFrom('sites').select('name').where('id', '=', campaign.site_id).executeTakeFirst();
    const event = createEvent('ReportSealed', {
      campaignId,
      orgId: campaign.org_id,
      name: campaign.name,
      siteId: campaign.site_id,
      siteName: site?.name,
      sealState: 'sealed',
      signedCount: report.signedCount,
      waivedCount: report.waivedCount,
      requiredCount: report.requiredCount,
      gate,
      readinessLevel,
      sealedVersion: seal.version,
      signedBy: stamps.map((s) => s.name),
      decision: seal.decision,
      occurredAt: toTimestamp(new Date()),
    });
    await enqueueCampaignEvent(trx, events, event, campaign.org_id);
  }
  return { outcome: verdictChanged ? 'changed' : 'unchanged', verdict, report };
}

/**
 * Replaces a campaign's policy and recomputes its verdict in the same transaction (the
 * campaign row is locked first, like every recompute). Undefined when the campaign does not exist.
 */
export async function replacePolicy(
  db: Kysely<CampaignDatabase>,
  campaignId: string,
  policy: LaunchPolicy,
  events: EventTarget,
): Promise<{ policy: LaunchPolicy; recompute: Recompute } | undefined> {
  return db.transaction().execute(async (trx) => {
    const exists = await trx.selectFrom('campaigns').select('id').where('id', '=', campaignId).forUpdate().executeTakeFirst();
    if (!exists) return undefined;
    const values = {
      do_not_launch_min_severity: policy.doNotLaunch.minSeverity,
      do_not_launch_max_open: policy.doNotLaunch.maxOpen,
      at_risk_min_severity: policy.atRisk.minSeverity,
      at_risk_max_open: policy.atRisk.maxOpen,
    };
    await trx
      .insertInto('launch_policies')
      .values({ campaign_id: campaignId, ...values })
      .onConflict((oc) => oc.column('campaign_id').doUpdateSet({ ...values, updated_at: sql<Date>`now()` }))
      .execute();
    const recompute = await recomputeReadiness(trx, campaignId, events);
    return { policy, recompute };
  });
}
