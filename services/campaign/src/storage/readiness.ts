import { enqueueEvent } from '@preflight/bus';
import { sql, type Kysely } from '@preflight/db';
import { createEvent, encodeEvent, toTimestamp } from '@preflight/events';
import {
  CLOSED_STATUSES,
  DEFAULT_LAUNCH_POLICY,
  gateOf,
  isKnownSeverity,
  readinessLevelOf,
  sealDecision,
  type LaunchPolicy,
  type SignOffDecision,
  type Verdict,
} from '../domain/launch-policy.ts';
import type { EventTarget } from './campaign-changes.ts';
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

/**
 * Keeps the state with the highest revision: an older or equal revision changes nothing, so
 * events may arrive in any order and any number of times. The one exception: a severity the
 * projection does not know yet is taken from any revision (severity never changes on an issue,
 * and a status change may arrive before the creation that carried it). True when the row changed.
 */
export async function projectIssue(trx: Kysely<CampaignDatabase>, issue: IssueState): Promise<boolean> {
  const upserted = await sql<{ issue_id: string }>`
    insert into issue_projection (issue_id, campaign_id, org_id, severity, status, revision, tester_email)
    values (${issue.issueId}, ${issue.campaignId}, ${issue.orgId}, ${issue.severity}, ${issue.status}, ${issue.revision}, ${issue.testerEmail})
    on conflict (issue_id) do update set
      campaign_id = excluded.campaign_id,
      org_id = coalesce(excluded.org_id, issue_projection.org_id),
      severity = coalesce(excluded.severity, issue_projection.severity),
      status = excluded.status,
      revision = excluded.revision,
      tester_email = coalesce(excluded.tester_email, issue_projection.tester_email),
      updated_at = now()
    where issue_projection.revision < excluded.revision
    returning issue_id`.execute(trx);
  if (upserted.rows.length > 0) return true;
  if (issue.severity === null && issue.testerEmail === null) return false;
  // Severity and tester e-mail never change on an issue: fill in what the row lacks, from any revision.
  const filled = await sql<{ issue_id: string }>`
    update issue_projection set
      severity = coalesce(severity, ${issue.severity}),
      tester_email = coalesce(tester_email, ${issue.testerEmail}),
      updated_at = now()
    where issue_id = ${issue.issueId}
      and ((severity is null and ${issue.severity}::text is not null) or (tester_email is null and ${issue.testerEmail}::text is not null))
    returning issue_id`.execute(trx);
  return filled.rows.length > 0;
}

/** The campaign's policy: its own row, or the default. */
export async function loadPolicy(db: Kysely<CampaignDatabase>, campaignId: string): Promise<LaunchPolicy> {
  const row = await db.selectFrom('launch_policies').selectAll().where('campaign_id', '=', campaignId).executeTakeFirst();
  if (!row) return DEFAULT_LAUNCH_POLICY;
  return {
    doNotLaunch: { minSeverity: row.do_not_launch_min_severity, maxOpen: row.do_not_launch_max_open },
    atRisk: { minSeverity: row.at_risk_min_severity, maxOpen: row.at_risk_max_open },
  };
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

export type Recompute = { outcome: 'missing' } | { outcome: 'changed' | 'unchanged'; verdict: Verdict; report: ReportState };

/** md5 of the campaign's open issue ids, sorted; md5('') when none is open. Unknown statuses are open. */
async function openIssuesDigest(trx: Kysely<CampaignDatabase>, campaignId: string): Promise<string> {
  const { rows } = await sql<{ digest: string }>`
    select md5(coalesce(string_agg(issue_id::text, ',' order by issue_id), '')) as digest
    from issue_projection
    where campaign_id = ${campaignId} and status <> all(${CLOSED_STATUSES}::text[])`.execute(trx);
  return rows[0]!.digest;
}

/**
 * Recomputes a campaign's readiness and its report, and stores what changed. Locks the
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
export async function recomputeReadiness(trx: Kysely<CampaignDatabase>, campaignId: string, events: EventTarget): Promise<Recompute> {
  if (!trx.isTransaction) throw new Error('recomputeReadiness must run inside a transaction');
  const campaign = await trx
    .selectFrom('campaigns')
    .select(['org_id', 'site_id', 'name', 'readiness_level', 'gate', 'report_version', 'report_open_digest', 'seal_state', 'sealed_version', 'seal_decision'])
    .where('id', '=', campaignId)
    .forUpdate()
    .executeTakeFirst();
  if (!campaign) return { outcome: 'missing' };
  const policy = await loadPolicy(trx, campaignId);
  const counts = await trx
    .selectFrom('issue_projection')
    .select(['severity', 'status', (eb) => eb.fn.countAll<number>().as('count')])
    .where('campaign_id', '=', campaignId)
    .groupBy(['severity', 'status'])
    .execute();
  const readinessLevel = readinessLevelOf(
    policy,
    counts.map((c) => ({ severity: isKnownSeverity(c.severity) ? c.severity : null, status: c.status, count: Number(c.count) })),
  );
  const digest = await openIssuesDigest(trx, campaignId);

  // 2. A new version when the verdict or the open set changed; the new one starts unsealed.
  const newVersion = readinessLevel !== campaign.readiness_level || digest !== campaign.report_open_digest;
  const version = newVersion ? campaign.report_version + 1 : campaign.report_version;
  let seal: { version: number; decision: SignOffDecision } | null =
    !newVersion && campaign.seal_state === 'sealed' && campaign.sealed_version === version && campaign.seal_decision
      ? { version, decision: campaign.seal_decision }
      : null;

  // 3. Who signed the current version.
  const signers = await trx.selectFrom('campaign_signers').select(['id', 'name']).where('campaign_id', '=', campaignId).execute();
  const entries = await trx
    .selectFrom('report_entries')
    .innerJoin('campaign_signers', 'campaign_signers.id', 'report_entries.signer_id')
    .select(['report_entries.signer_id', 'report_entries.kind', 'report_entries.decision', 'campaign_signers.name'])
    .where('report_entries.campaign_id', '=', campaignId)
    .where('report_entries.version', '=', version)
    .orderBy('report_entries.at')
    .orderBy('report_entries.id')
    .execute();
  const stamps = entries.filter((e) => e.kind === 'stamp' && e.decision !== null) as Array<(typeof entries)[number] & { decision: SignOffDecision }>;
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
    await enqueueEvent(trx, { ...encodeEvent(event, events.prefix), orgId: campaign.org_id });
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
    return { policy: await loadPolicy(trx, campaignId), recompute };
  });
}
