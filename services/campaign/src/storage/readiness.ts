import { enqueueDomainEvent, type EventTarget } from '@preflight/bus';
import { sql, type Kysely } from '@preflight/db';
import { createEvent, toTimestamp } from '@preflight/events';
import type { IssueStats } from '../domain/issue-stats.ts';
import { DEFAULT_LAUNCH_POLICY, type LaunchPolicy, type Verdict } from '../domain/launch-policy.ts';
import { nextReadiness, type ReportSigner, type ReportState, type StoredReadiness, type VersionEntry } from '../domain/readiness-report.ts';
import { campaignsIn } from './campaigns.ts';
import { readIssueStats } from './issue-projection.ts';
import type { CampaignDatabase } from './schema.ts';

/*
 * A campaign's verdict and report, stored: the policy, and the recompute that reads a campaign's
 * readiness inputs, decides with domain/readiness-report.ts and writes what changed. Runs inside
 * a caller's transaction (the consumer's inbox transaction, or a policy, signer or entry change).
 */

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

export type Recompute = { outcome: 'missing' } | { outcome: 'changed' | 'unchanged'; verdict: Verdict; report: ReportState };

/**
 * Recomputes a campaign's readiness and its report (`nextReadiness`), and stores what changed.
 * Reads the issue counts and the open set from the campaign's statistics row, never from the
 * issues. Locks the campaign row first, so concurrent recomputes of one campaign (issue events,
 * a policy change, stamps and waivers, signers added or removed) run one after the other and
 * each sees what the previous committed. Sealing the current version enqueues ReportSealed in
 * this transaction. `missing`: no such campaign; `changed`: the level or the gate changed.
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
      sql<ReportSigner[]>`(select coalesce(json_agg(json_build_object('id', s.id, 'name', s.name)), '[]') from campaign_signers s where s.campaign_id = c.id)`.as('signers'),
      sql<VersionEntry[]>`(
        select coalesce(json_agg(json_build_object('signerId', e.signer_id, 'kind', e.kind, 'decision', e.decision, 'signerName', s.name) order by e.at, e.id), '[]')
        from report_entries e join campaign_signers s on s.id = e.signer_id
        where e.campaign_id = c.id and e.version = c.report_version)`.as('entries'),
    ])
    .where('c.id', '=', campaignId)
    .forUpdate('c')
    .executeTakeFirst();
  if (!campaign) return { outcome: 'missing' };
  const stored: StoredReadiness = {
    readinessLevel: campaign.readiness_level,
    gate: campaign.gate,
    reportVersion: campaign.report_version,
    reportOpenDigest: campaign.report_open_digest,
    sealState: campaign.seal_state,
    sealedVersion: campaign.sealed_version,
    sealDecision: campaign.seal_decision,
  };
  const stats = known ?? (await readIssueStats(trx, campaignId));
  const next = nextReadiness(stored, policyOf(campaign), stats, campaign.signers, campaign.entries);
  const { verdict, report } = next;

  if (next.changed) {
    await trx
      .updateTable('campaigns')
      .set({
        readiness_level: verdict.readinessLevel,
        gate: verdict.gate,
        report_version: report.version,
        report_open_digest: next.openDigest,
        seal_state: report.sealState,
        sealed_version: report.sealedVersion,
        seal_decision: report.decision,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', campaignId)
      .execute();
  }

  if (report.sealedNow && next.seal) {
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
      gate: verdict.gate,
      readinessLevel: verdict.readinessLevel,
      sealedVersion: next.seal.version,
      signedBy: next.signedBy,
      decision: next.seal.decision,
      occurredAt: toTimestamp(new Date()),
    });
    await enqueueDomainEvent(trx, events, event, campaign.org_id);
  }
  return { outcome: next.verdictChanged ? 'changed' : 'unchanged', verdict, report };
}

/**
 * Replaces a campaign's policy and recomputes its verdict in the same transaction (the
 * campaign row is locked first, like every recompute). Undefined when the campaign does not
 * exist (in `orgScope`).
 */
export async function replacePolicy(
  db: Kysely<CampaignDatabase>,
  campaignId: string,
  policy: LaunchPolicy,
  events: EventTarget,
  orgScope?: string,
): Promise<{ policy: LaunchPolicy; recompute: Recompute } | undefined> {
  return db.transaction().execute(async (trx) => {
    const exists = await campaignsIn(trx, orgScope).select('id').where('id', '=', campaignId).forUpdate().executeTakeFirst();
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
