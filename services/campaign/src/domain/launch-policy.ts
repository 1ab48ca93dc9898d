import { ISSUE_SEVERITIES, SEVERITY_RANK, type AdminReportEntry, type Gate, type IssueSeverity, type IssueStatus, type ReadinessLevel } from '@preflight/contract';

/*
 * The launch policy: how a campaign's open issues become its readiness verdict and gate.
 * Pure rules, no I/O; the projection (domain/issue-stats.ts) feeds them counts of issues.
 */

/** "More than `maxOpen` open issues of severity `minSeverity` or worse." */
export interface SeverityThreshold {
  minSeverity: IssueSeverity;
  maxOpen: number;
}

/** A campaign's thresholds; what GET/PUT /admin/v1/campaigns/:id/policy show and take. */
export interface LaunchPolicy {
  doNotLaunch: SeverityThreshold;
  atRisk: SeverityThreshold;
}

/** Any open Critical → DoNotLaunch; else any open High → AtRisk. */
export const DEFAULT_LAUNCH_POLICY: LaunchPolicy = {
  doNotLaunch: { minSeverity: 'Critical', maxOpen: 0 },
  atRisk: { minSeverity: 'High', maxOpen: 0 },
};

/**
 * Whether an issue in each status still stands in the way of a launch. An issue is open
 * unless it is closed one way or another or a retest confirmed the fix. Exhaustive: a new
 * status does not compile until it is placed here.
 */
export const ISSUE_IS_OPEN = {
  New: true,
  Acknowledged: true,
  InProgress: true,
  Fixed: true,
  RetestRequested: true,
  RetestFixed: false,
  RetestFailed: true,
  Closed: false,
  WontFix: false,
  Duplicate: false,
} as const satisfies Record<IssueStatus, boolean>;

/** Unknown status strings (a newer issue service) count as open: the cautious reading. */
export function isOpenStatus(status: string): boolean {
  return Object.hasOwn(ISSUE_IS_OPEN, status) ? ISSUE_IS_OPEN[status as IssueStatus] : true;
}

export function isKnownSeverity(value: string | null | undefined): value is IssueSeverity {
  return typeof value === 'string' && (ISSUE_SEVERITIES as readonly string[]).includes(value);
}

/** `severity` is `threshold` or worse (Critical is the worst). */
export function atLeastAsSevere(severity: IssueSeverity, threshold: IssueSeverity): boolean {
  return SEVERITY_RANK[severity] <= SEVERITY_RANK[threshold];
}

/**
 * What each level means for the gate: a level that blocks the launch is `not-cleared`
 * whatever the sign-offs; the others are cleared once the required sign-offs are in.
 * Exhaustive over the levels.
 */
export const GATE_OF_LEVEL = {
  DoNotLaunch: 'blocked',
  AtRisk: 'blocked',
  ReadyWithIssues: 'needs-signoffs',
  ReadyToLaunch: 'needs-signoffs',
} as const satisfies Record<ReadinessLevel, 'blocked' | 'needs-signoffs'>;

/** Issues of a campaign, grouped: how many are in one (severity, status) pair. */
export interface IssueCount {
  /** Null when the issue's severity is unknown: it is open or not, but never above a threshold. */
  severity: IssueSeverity | null;
  status: string;
  count: number;
}

/** The sign-offs as far as the gate is concerned (domain/readiness-report.ts works them out). */
export interface SignOffState {
  /** Required signers: every signer of the campaign. 0 leaves the gate to the level alone. */
  required: number;
  /** The seal of the current report version, or null while it is open. */
  seal: { decision: SignOffDecision } | null;
}

/** A stamp's decision (the admin API's words). */
export type SignOffDecision = NonNullable<AdminReportEntry['decision']>;

/** Nothing to sign: the gate follows the level alone. */
export const NO_SIGNOFFS: SignOffState = { required: 0, seal: null };

export interface Verdict {
  readinessLevel: ReadinessLevel;
  gate: Gate;
}

/** The verdict of a campaign with no issues and nothing to sign: what a new campaign starts with. */
export const INITIAL_VERDICT: Verdict = { readinessLevel: 'ReadyToLaunch', gate: 'cleared' };

/** The readiness level alone: DoNotLaunch, AtRisk, ReadyWithIssues or ReadyToLaunch. */
export function readinessLevelOf(policy: LaunchPolicy, issues: readonly IssueCount[]): ReadinessLevel {
  const open = issues.filter((i) => i.count > 0 && isOpenStatus(i.status));
  const openAtOrAbove = (threshold: IssueSeverity) =>
    open.reduce((n, i) => (i.severity !== null && atLeastAsSevere(i.severity, threshold) ? n + i.count : n), 0);
  if (openAtOrAbove(policy.doNotLaunch.minSeverity) > policy.doNotLaunch.maxOpen) return 'DoNotLaunch';
  if (openAtOrAbove(policy.atRisk.minSeverity) > policy.atRisk.maxOpen) return 'AtRisk';
  if (open.length > 0) return 'ReadyWithIssues';
  return 'ReadyToLaunch';
}

/**
 * The gate: not-cleared for a blocking level whatever the sign-offs; with no signer, cleared;
 * with signers, awaiting-signoff while the current report version is not sealed, cleared once
 * it is sealed with the decision approve, not-cleared when it is sealed with reject.
 */
export function gateOf(level: ReadinessLevel, signOffs: SignOffState = NO_SIGNOFFS): Gate {
  if (GATE_OF_LEVEL[level] === 'blocked') return 'not-cleared';
  if (signOffs.required === 0) return 'cleared';
  if (!signOffs.seal) return 'awaiting-signoff';
  return signOffs.seal.decision === 'approve' ? 'cleared' : 'not-cleared';
}

/**
 * The verdict: DoNotLaunch when more than `doNotLaunch.maxOpen` open issues are at or above
 * `doNotLaunch.minSeverity`; else AtRisk likewise; else ReadyWithIssues when any issue is open;
 * else ReadyToLaunch. The gate is `gateOf` the level and the sign-offs.
 */
export function evaluateLaunchPolicy(policy: LaunchPolicy, issues: readonly IssueCount[], signOffs: SignOffState = NO_SIGNOFFS): Verdict {
  const readinessLevel = readinessLevelOf(policy, issues);
  return { readinessLevel, gate: gateOf(readinessLevel, signOffs) };
}

/**
 * The decision of a sealed report version: approve only if every stamp on it approves, else
 * reject. Waivers do not vote, so a version sealed by waivers alone is approved.
 */
export function sealDecision(stamps: readonly { decision: SignOffDecision }[]): SignOffDecision {
  return stamps.every((s) => s.decision === 'approve') ? 'approve' : 'reject';
}

/**
 * Why a policy is inconsistent, or undefined when it is fine: the AtRisk threshold must not
 * be more severe than the DoNotLaunch one (otherwise "at risk" would be stricter than "do not
 * launch").
 */
export function policyProblem(policy: LaunchPolicy): { field: string; message: string } | undefined {
  if (SEVERITY_RANK[policy.atRisk.minSeverity] < SEVERITY_RANK[policy.doNotLaunch.minSeverity]) {
    return {
      field: 'atRisk.minSeverity',
      message: `Must not be more severe than doNotLaunch.minSeverity (${policy.doNotLaunch.minSeverity}).`,
    };
  }
  return undefined;
}
