import { createHash } from 'node:crypto';
import { isKnownSeverity, isOpenStatus, type IssueCount } from './launch-policy.ts';

/*
 * The readiness projection's arithmetic: one state per issue from its events, and a campaign's
 * issue statistics as issues move between (severity, status) pairs. Pure; storage/ reads and
 * writes the rows (storage/issue-projection.ts).
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
export interface IssueSlot {
  severity: string | null;
  status: string;
}

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

/** A campaign with no issue yet (the column defaults of a new statistics row). */
export const EMPTY_ISSUE_STATS: IssueStats = { counts: {}, openCount: 0, openHashHi: 0n, openHashLo: 0n };

const slotKey = (slot: IssueSlot) => `${slot.severity ?? ''}/${slot.status}`;

/** md5 of the issue id as two signed 64-bit halves, exactly as migration 0004 computes it in SQL. */
function idHash(issueId: string): [bigint, bigint] {
  const hex = createHash('md5').update(issueId.toLowerCase()).digest('hex');
  return [BigInt.asIntN(64, BigInt(`0x${hex.slice(0, 16)}`)), BigInt.asIntN(64, BigInt(`0x${hex.slice(16)}`))];
}

/** The statistics after one issue's row went from `before` (undefined: a new issue) to `after`. */
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

/** The campaign's issues grouped by (severity, status), as the launch policy takes them. */
export function issueCounts(stats: IssueStats): IssueCount[] {
  return Object.entries(stats.counts).map(([key, count]) => {
    const slash = key.indexOf('/');
    const severity = key.slice(0, slash);
    return { severity: isKnownSeverity(severity) ? severity : null, status: key.slice(slash + 1), count };
  });
}

/** Empty set: md5(''), the column default of a new campaign. */
export const EMPTY_OPEN_SET_DIGEST = 'd41d8cd98f00b204e9800998ecf8427e';

/** Stands for the set of open issue ids: differs whenever the set does (migration 0004 writes the same form). */
export function openSetDigest(stats: IssueStats): string {
  return stats.openCount === 0 ? EMPTY_OPEN_SET_DIGEST : `xor:${stats.openCount}:${stats.openHashHi}:${stats.openHashLo}`;
}
