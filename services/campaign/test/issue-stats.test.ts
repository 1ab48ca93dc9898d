import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  applyToStats,
  EMPTY_ISSUE_STATS,
  EMPTY_OPEN_SET_DIGEST,
  issueCounts,
  mergeIssueStates,
  openSetDigest,
  type IssueState,
  type IssueStats,
} from '../src/domain/issue-stats.ts';

// The projection's arithmetic, without a database; the SQL side is covered by readiness.test.ts.
const A = '0190a000-0000-7000-8000-00000000000a';
const B = '0190a000-0000-7000-8000-00000000000b';
const CAMPAIGN = '0190a000-0000-7000-8000-0000000000c0';

const state = (over: Partial<IssueState>): IssueState => ({
  issueId: A,
  campaignId: CAMPAIGN,
  orgId: null,
  severity: null,
  status: 'New',
  revision: 1,
  testerEmail: null,
  ...over,
});

/** md5 halves as migration 0004 computes them: ('x' || substr(md5(id), …))::bit(64)::bigint. */
const sqlHalves = (id: string): [bigint, bigint] => {
  const hex = createHash('md5').update(id).digest('hex');
  return [BigInt.asIntN(64, BigInt(`0x${hex.slice(0, 16)}`)), BigInt.asIntN(64, BigInt(`0x${hex.slice(16)}`))];
};

describe('mergeIssueStates', () => {
  it('keeps one state per issue: the highest revision, with the severity and e-mail of any event', () => {
    const merged = mergeIssueStates([
      state({ revision: 1, severity: 'High', testerEmail: 't@example.com', orgId: 'org' }),
      state({ issueId: A.toUpperCase(), revision: 3, status: 'Fixed' }),
      state({ revision: 2, status: 'InProgress' }),
      state({ issueId: B, revision: 1, severity: 'Low' }),
    ]);
    expect(merged).toEqual([
      { ...state({ issueId: A.toUpperCase(), revision: 3, status: 'Fixed' }), severity: 'High', testerEmail: 't@example.com', orgId: 'org' },
      state({ issueId: B, revision: 1, severity: 'Low' }),
    ]);
  });

  it('passes a lone state through unchanged', () => {
    const lone = state({ severity: 'Critical' });
    expect(mergeIssueStates([lone])).toEqual([lone]);
  });
});

describe('applyToStats', () => {
  it('counts a new open issue and adds its id hash to the open set', () => {
    const stats = applyToStats(EMPTY_ISSUE_STATS, A, undefined, { severity: 'High', status: 'New' });
    const [hi, lo] = sqlHalves(A);
    expect(stats).toEqual({ counts: { 'High/New': 1 }, openCount: 1, openHashHi: hi, openHashLo: lo });
    expect(openSetDigest(stats)).toBe(`xor:1:${hi}:${lo}`);
  });

  it('hashes the lower-case id, as Postgres prints a uuid', () => {
    const upper = applyToStats(EMPTY_ISSUE_STATS, A.toUpperCase(), undefined, { severity: null, status: 'New' });
    const lower = applyToStats(EMPTY_ISSUE_STATS, A, undefined, { severity: null, status: 'New' });
    expect(upper.openHashHi).toBe(lower.openHashHi);
    expect(upper.openHashLo).toBe(lower.openHashLo);
  });

  it('moves a count between slots without touching the open set while the issue stays open', () => {
    const opened = applyToStats(EMPTY_ISSUE_STATS, A, undefined, { severity: null, status: 'New' });
    const moved = applyToStats(opened, A, { severity: null, status: 'New' }, { severity: 'Low', status: 'InProgress' });
    expect(moved).toEqual({ ...opened, counts: { 'Low/InProgress': 1 } });
  });

  it('takes an issue out of the open set when it closes, back to the empty digest', () => {
    const opened = applyToStats(EMPTY_ISSUE_STATS, A, undefined, { severity: 'Critical', status: 'New' });
    const closed = applyToStats(opened, A, { severity: 'Critical', status: 'New' }, { severity: 'Critical', status: 'Closed' });
    expect(closed).toEqual({ counts: { 'Critical/Closed': 1 }, openCount: 0, openHashHi: 0n, openHashLo: 0n });
    expect(openSetDigest(closed)).toBe(EMPTY_OPEN_SET_DIGEST);
  });

  it('gives the same open set whatever the order issues arrive in', () => {
    const slot = { severity: 'Medium', status: 'New' };
    const ab = applyToStats(applyToStats(EMPTY_ISSUE_STATS, A, undefined, slot), B, undefined, slot);
    const ba = applyToStats(applyToStats(EMPTY_ISSUE_STATS, B, undefined, slot), A, undefined, slot);
    expect(ab).toEqual(ba);
    expect(openSetDigest(ab)).not.toBe(openSetDigest(applyToStats(EMPTY_ISSUE_STATS, A, undefined, slot)));
  });

  it('counts an issue that is new and already closed without opening it', () => {
    expect(applyToStats(EMPTY_ISSUE_STATS, A, undefined, { severity: 'High', status: 'WontFix' })).toEqual({ ...EMPTY_ISSUE_STATS, counts: { 'High/WontFix': 1 } });
  });
});

describe('issueCounts and openSetDigest', () => {
  it('reads the severity back from the slot key, null when unknown', () => {
    const stats: IssueStats = { counts: { 'High/New': 2, '/Fixed': 1, 'Bogus/New': 1 }, openCount: 4, openHashHi: 1n, openHashLo: -2n };
    expect(issueCounts(stats)).toEqual([
      { severity: 'High', status: 'New', count: 2 },
      { severity: null, status: 'Fixed', count: 1 },
      { severity: null, status: 'New', count: 1 },
    ]);
    expect(openSetDigest(stats)).toBe('xor:4:1:-2');
  });

  it("is md5('') for no open issue, the column default of a new campaign", () => {
    expect(openSetDigest(EMPTY_ISSUE_STATS)).toBe(createHash('md5').update('').digest('hex'));
  });
});
