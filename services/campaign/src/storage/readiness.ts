import { sql, type Kysely } from '@preflight/db';
import { DEFAULT_LAUNCH_POLICY, evaluateLaunchPolicy, isKnownSeverity, type LaunchPolicy, type Verdict } from '../domain/launch-policy.ts';
import type { CampaignDatabase } from './schema.ts';

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
}

/**
 * Keeps the state with the highest revision: an older or equal revision changes nothing, so
 * events may arrive in any order and any number of times. The one exception: a severity the
 * projection does not know yet is taken from any revision (severity never changes on an issue,
 * and a status change may arrive before the creation that carried it). True when the row changed.
 */
export async function projectIssue(trx: Kysely<CampaignDatabase>, issue: IssueState): Promise<boolean> {
  const upserted = await sql<{ issue_id: string }>`
    insert into issue_projection (issue_id, campaign_id, org_id, severity, status, revision)
    values (${issue.issueId}, ${issue.campaignId}, ${issue.orgId}, ${issue.severity}, ${issue.status}, ${issue.revision})
    on conflict (issue_id) do update set
      campaign_id = excluded.campaign_id,
      org_id = coalesce(excluded.org_id, issue_projection.org_id),
      severity = coalesce(excluded.severity, issue_projection.severity),
      status = excluded.status,
      revision = excluded.revision,
      updated_at = now()
    where issue_projection.revision < excluded.revision
    returning issue_id`.execute(trx);
  if (upserted.rows.length > 0) return true;
  if (issue.severity === null) return false;
  const filled = await trx
    .updateTable('issue_projection')
    .set({ severity: issue.severity, updated_at: sql<Date>`now()` })
    .where('issue_id', '=', issue.issueId)
    .where('severity', 'is', null)
    .executeTakeFirst();
  return filled.numUpdatedRows > 0n;
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

export type Recompute = { outcome: 'missing' } | { outcome: 'changed' | 'unchanged'; verdict: Verdict };

/**
 * Recomputes a campaign's verdict from the projection and its policy, and stores it if it
 * changed. Locks the campaign row first, so concurrent recomputes of one campaign run one
 * after the other and each counts what the previous committed. `missing`: no such campaign.
 */
export async function recomputeReadiness(trx: Kysely<CampaignDatabase>, campaignId: string): Promise<Recompute> {
  if (!trx.isTransaction) throw new Error('recomputeReadiness must run inside a transaction');
  const campaign = await trx
    .selectFrom('campaigns')
    .select(['readiness_level', 'gate'])
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
  const verdict = evaluateLaunchPolicy(
    policy,
    counts.map((c) => ({ severity: isKnownSeverity(c.severity) ? c.severity : null, status: c.status, count: Number(c.count) })),
    // Sign-offs do not exist yet: none is required, none is missing.
    { missing: 0 },
  );
  if (verdict.readinessLevel === campaign.readiness_level && verdict.gate === campaign.gate) return { outcome: 'unchanged', verdict };
  await trx
    .updateTable('campaigns')
    .set({ readiness_level: verdict.readinessLevel, gate: verdict.gate, updated_at: sql<Date>`now()` })
    .where('id', '=', campaignId)
    .execute();
  return { outcome: 'changed', verdict };
}

/**
 * Replaces a campaign's policy and recomputes its verdict in the same transaction (the
 * campaign row is locked first, like every recompute). Undefined when the campaign does not exist.
 */
export async function replacePolicy(
  db: Kysely<CampaignDatabase>,
  campaignId: string,
  policy: LaunchPolicy,
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
    const recompute = await recomputeReadiness(trx, campaignId);
    return { policy: await loadPolicy(trx, campaignId), recompute };
  });
}
