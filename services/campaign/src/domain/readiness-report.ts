import type { AdminReport, AdminReportEntry, Gate, ReadinessLevel } from '@preflight/contract';
import { issueCounts, openSetDigest, type IssueStats } from './issue-stats.ts';
import { gateOf, readinessLevelOf, sealDecision, type LaunchPolicy, type SignOffDecision, type Verdict } from './launch-policy.ts';

/*
 * The readiness report (docs/readiness.md, "Launch sign-off"): from a campaign's issue
 * statistics, policy, signers and the entries on its current version, the next verdict, report
 * version and seal. Pure; storage/readiness.ts reads the inputs and stores the outcome.
 */

/** `open`: the current version is not sealed (yet, or any more); `sealed`: it is. The words are the admin API's. */
export type SealState = AdminReport['sealState'];
/** `stamp` (with a decision) or `waiver` (without). */
export type ReportEntryKind = AdminReportEntry['kind'];

/** What a campaign holds of its readiness before a recompute. */
export interface StoredReadiness {
  readinessLevel: ReadinessLevel;
  gate: Gate;
  reportVersion: number;
  /** `openSetDigest` of the open issues the current version was made for. */
  reportOpenDigest: string;
  sealState: SealState;
  sealedVersion: number | null;
  sealDecision: SignOffDecision | null;
}

/** A required signer of the report. */
export interface ReportSigner {
  id: string;
  name: string;
}

/** A stamp (with a decision) or a waiver (without) on the stored current version, with its signer's name. */
export interface VersionEntry {
  signerId: string;
  kind: ReportEntryKind;
  decision: SignOffDecision | null;
  signerName: string;
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
  /** This recompute sealed the current version (ReportSealed is due). */
  sealedNow: boolean;
}

/** What a recompute decided. */
export interface NextReadiness {
  verdict: Verdict;
  report: ReportState;
  /** The open set's digest, stored with the version. */
  openDigest: string;
  /** The seal of the current version, null while it is open. */
  seal: { version: number; decision: SignOffDecision } | null;
  /** The signers who stamped the current version, in the order of their stamps (ReportSealed's signedBy). */
  signedBy: string[];
  /** The level or the gate changed. */
  verdictChanged: boolean;
  /** Something of `StoredReadiness` changed (verdict, version or seal): it must be stored. */
  changed: boolean;
}

/**
 * 1. The level, from the issue counts and the policy.
 * 2. The report version: +1 when the level or the set of open issue ids changed; a new
 *    version is unsealed (its entries start empty).
 * 3. The seal: the current version is sealed when the campaign has at least one signer and
 *    every signer has a stamp or a waiver on it (`sealedNow`: ReportSealed is due). A sealed
 *    version whose signers are no longer all in (a signer was added) is unsealed.
 * 4. The gate, from the level and the seal (`gateOf`).
 * `entries` are those on `stored.reportVersion`, oldest first.
 */
export function nextReadiness(
  stored: StoredReadiness,
  policy: LaunchPolicy,
  stats: IssueStats,
  signers: readonly ReportSigner[],
  entries: readonly VersionEntry[],
): NextReadiness {
  const readinessLevel = readinessLevelOf(policy, issueCounts(stats));
  const openDigest = openSetDigest(stats);

  // 2. A new version when the verdict or the open set changed; the new one starts unsealed.
  const newVersion = readinessLevel !== stored.readinessLevel || openDigest !== stored.reportOpenDigest;
  const version = newVersion ? stored.reportVersion + 1 : stored.reportVersion;
  let seal: NextReadiness['seal'] =
    !newVersion && stored.sealState === 'sealed' && stored.sealedVersion === version && stored.sealDecision
      ? { version, decision: stored.sealDecision }
      : null;

  // 3. Who signed the current version (a new version has no entries yet: a stamp or waiver
  // must name the version that is current when it is made).
  const current = newVersion ? [] : entries;
  const stamps = current.filter((e) => e.kind === 'stamp' && e.decision !== null) as Array<VersionEntry & { decision: SignOffDecision }>;
  const signed = new Set(current.map((e) => e.signerId));
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
  const report: ReportState = {
    version,
    sealState: seal ? 'sealed' : 'open',
    sealedVersion: seal?.version ?? null,
    decision: seal?.decision ?? null,
    requiredCount: signers.length,
    signedCount: stamps.length,
    waivedCount: current.filter((e) => e.kind === 'waiver').length,
    newVersion,
    sealedNow,
  };

  const verdictChanged = readinessLevel !== stored.readinessLevel || gate !== stored.gate;
  const sealChanged = report.sealState !== stored.sealState || report.sealedVersion !== stored.sealedVersion || report.decision !== stored.sealDecision;
  return {
    verdict: { readinessLevel, gate },
    report,
    openDigest,
    seal,
    signedBy: stamps.map((s) => s.signerName),
    verdictChanged,
    changed: verdictChanged || newVersion || sealChanged,
  };
}
