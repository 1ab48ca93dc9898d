import type { EventTarget } from '@preflight/bus';
import type { Gate, ReadinessLevel } from '@preflight/contract';
import { sql, type Kysely } from '@preflight/db';
import type { SignOffDecision } from '../domain/launch-policy.ts';
import type { ReportEntryKind, SealState } from '../domain/readiness-report.ts';
import { campaignsIn } from './campaigns.ts';
import { recomputeReadiness, type Recompute } from './readiness.ts';
import type { CampaignDatabase, ReportEntry, Signer } from './schema.ts';

/*
 * The readiness report's signers and entries (docs/readiness.md, "Launch sign-off"). Every
 * change locks the campaign row, writes, then recomputes the report and the gate in the same
 * transaction (recomputeReadiness), which seals the current version and enqueues ReportSealed
 * when the last signer is in.
 */

/** The campaign row, locked; undefined when there is none in `orgScope` (checked before anything is written). */
async function lockCampaign(trx: Kysely<CampaignDatabase>, campaignId: string, orgScope: string | undefined) {
  return campaignsIn(trx, orgScope).select(['id', 'report_version']).where('id', '=', campaignId).forUpdate().executeTakeFirst();
}

const SIGNER_COLUMNS = ['id', 'name', 'email', 'created_at as createdAt'] as const;
const ENTRY_COLUMNS = ['signer_id as signerId', 'version', 'kind', 'decision', 'note', 'at'] as const;

function settled(recompute: Recompute): asserts recompute is Exclude<Recompute, { outcome: 'missing' }> {
  if (recompute.outcome === 'missing') throw new Error('campaign vanished inside its own transaction');
}

export type AddSigner = { outcome: 'not_found' } | { outcome: 'duplicate' } | { outcome: 'created'; signer: Signer };

/** Adds a (required) signer. A sealed report is unsealed until the new signer is in too. */
export async function addSigner(
  db: Kysely<CampaignDatabase>,
  input: { campaignId: string; name: string; email: string; orgScope?: string | undefined },
  events: EventTarget,
): Promise<AddSigner> {
  return db.transaction().execute(async (trx) => {
    if (!(await lockCampaign(trx, input.campaignId, input.orgScope))) return { outcome: 'not_found' } as const;
    const same = await trx
      .selectFrom('campaign_signers')
      .select('id')
      .where('campaign_id', '=', input.campaignId)
      .where(sql`lower(email)`, '=', input.email.toLowerCase())
      .executeTakeFirst();
    if (same) return { outcome: 'duplicate' } as const;
    const signer = await trx
      .insertInto('campaign_signers')
      .values({ campaign_id: input.campaignId, name: input.name, email: input.email })
      .returning(SIGNER_COLUMNS)
      .executeTakeFirstOrThrow();
    settled(await recomputeReadiness(trx, input.campaignId, events));
    return { outcome: 'created', signer } as const;
  });
}

/** A campaign's signers, oldest first; undefined when the campaign does not exist (in `orgScope`). */
export async function listSigners(db: Kysely<CampaignDatabase>, campaignId: string, orgScope?: string): Promise<Signer[] | undefined> {
  const campaign = await campaignsIn(db, orgScope).select('id').where('id', '=', campaignId).executeTakeFirst();
  if (!campaign) return undefined;
  return db.selectFrom('campaign_signers').select(SIGNER_COLUMNS).where('campaign_id', '=', campaignId).orderBy('created_at').orderBy('id').execute();
}

/**
 * Removes a signer and its entries. The remaining signers may now all be in on the current
 * version, which seals it; with no signer left the gate is the level's alone.
 */
export async function removeSigner(
  db: Kysely<CampaignDatabase>,
  input: { campaignId: string; signerId: string; orgScope?: string | undefined },
  events: EventTarget,
): Promise<'not_found_campaign' | 'not_found_signer' | 'removed'> {
  return db.transaction().execute(async (trx) => {
    if (!(await lockCampaign(trx, input.campaignId, input.orgScope))) return 'not_found_campaign';
    const removed = await trx
      .deleteFrom('campaign_signers')
      .where('id', '=', input.signerId)
      .where('campaign_id', '=', input.campaignId)
      .executeTakeFirst();
    if (removed.numDeletedRows === 0n) return 'not_found_signer';
    settled(await recomputeReadiness(trx, input.campaignId, events));
    return 'removed';
  });
}

export type AddEntry =
  | { outcome: 'not_found' }
  | { outcome: 'unknown_signer' }
  | { outcome: 'stale'; current: number }
  | { outcome: 'duplicate'; current: number }
  | { outcome: 'created'; entry: ReportEntry };

/**
 * A stamp (`decision` set) or a waiver (`decision` null) of one signer on the current version.
 * A version other than the current one is `stale`; a second entry of a signer on one version
 * is a `duplicate` (a version's entries are final). Recomputes the report, which may seal it.
 */
export async function addEntry(
  db: Kysely<CampaignDatabase>,
  input: { campaignId: string; signerId: string; version: number; kind: ReportEntryKind; decision: SignOffDecision | null; note: string | null; orgScope?: string | undefined },
  events: EventTarget,
): Promise<AddEntry> {
  return db.transaction().execute(async (trx) => {
    const campaign = await lockCampaign(trx, input.campaignId, input.orgScope);
    if (!campaign) return { outcome: 'not_found' } as const;
    const signer = await trx
      .selectFrom('campaign_signers')
      .select('id')
      .where('id', '=', input.signerId)
      .where('campaign_id', '=', input.campaignId)
      .executeTakeFirst();
    if (!signer) return { outcome: 'unknown_signer' } as const;
    if (input.version !== campaign.report_version) return { outcome: 'stale', current: campaign.report_version } as const;
    const entry = await trx
      .insertInto('report_entries')
      .values({
        campaign_id: input.campaignId,
        signer_id: input.signerId,
        version: input.version,
        kind: input.kind,
        decision: input.decision,
        note: input.note,
      })
      .onConflict((oc) => oc.columns(['signer_id', 'version']).doNothing())
      .returning(ENTRY_COLUMNS)
      .executeTakeFirst();
    if (!entry) return { outcome: 'duplicate', current: campaign.report_version } as const;
    settled(await recomputeReadiness(trx, input.campaignId, events));
    return { outcome: 'created', entry } as const;
  });
}

export interface ReportView {
  version: number;
  readinessLevel: ReadinessLevel;
  gate: Gate;
  sealState: SealState;
  sealedVersion: number | null;
  requiredCount: number;
  signedCount: number;
  waivedCount: number;
  entries: ReportEntry[];
}

/** The report as stored: counts are of the current version, entries of every version (oldest first); undefined outside `orgScope`. */
export async function getReport(db: Kysely<CampaignDatabase>, campaignId: string, orgScope?: string): Promise<ReportView | undefined> {
  // One snapshot: the version, the seal and the entries agree with each other.
  return db.transaction().setIsolationLevel('repeatable read').execute((trx) => readReport(trx, campaignId, orgScope));
}

async function readReport(db: Kysely<CampaignDatabase>, campaignId: string, orgScope: string | undefined): Promise<ReportView | undefined> {
  const campaign = await campaignsIn(db, orgScope)
    .select(['readiness_level', 'gate', 'report_version', 'seal_state', 'sealed_version'])
    .where('id', '=', campaignId)
    .executeTakeFirst();
  if (!campaign) return undefined;
  const signers = await db.selectFrom('campaign_signers').select((eb) => eb.fn.countAll<string>().as('n')).where('campaign_id', '=', campaignId).executeTakeFirstOrThrow();
  const entries = await db.selectFrom('report_entries').select(ENTRY_COLUMNS).where('campaign_id', '=', campaignId).orderBy('at').orderBy('id').execute();
  const current = entries.filter((e) => e.version === campaign.report_version);
  return {
    version: campaign.report_version,
    readinessLevel: campaign.readiness_level,
    gate: campaign.gate,
    sealState: campaign.seal_state,
    sealedVersion: campaign.sealed_version,
    requiredCount: Number(signers.n),
    signedCount: current.filter((e) => e.kind === 'stamp').length,
    waivedCount: current.filter((e) => e.kind === 'waiver').length,
    entries,
  };
}
