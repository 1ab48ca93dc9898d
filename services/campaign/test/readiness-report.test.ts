import { describe, expect, it } from 'vitest';
import { applyToStats, EMPTY_ISSUE_STATS, EMPTY_OPEN_SET_DIGEST, openSetDigest, type IssueStats } from '../src/domain/issue-stats.ts';
import { DEFAULT_LAUNCH_POLICY } from '../src/domain/launch-policy.ts';
import { nextReadiness, type StoredReadiness, type VersionEntry } from '../src/domain/readiness-report.ts';

// Report versions, seals and the gate, without a database; the stored side is covered by signoff.test.ts.
const ISSUE = '0190a000-0000-7000-8000-00000000000a';
const ann = { id: 's1', name: 'Ann' };
const bob = { id: 's2', name: 'Bob' };

const fresh: StoredReadiness = {
  readinessLevel: 'ReadyToLaunch',
  gate: 'cleared',
  reportVersion: 1,
  reportOpenDigest: EMPTY_OPEN_SET_DIGEST,
  sealState: 'open',
  sealedVersion: null,
  sealDecision: null,
};

const withOpen = (severity: string): IssueStats => applyToStats(EMPTY_ISSUE_STATS, ISSUE, undefined, { severity, status: 'New' });
const stamp = (signer: { id: string; name: string }, decision: 'approve' | 'reject'): VersionEntry => ({ signerId: signer.id, kind: 'stamp', decision, signerName: signer.name });
const waiver = (signer: { id: string; name: string }): VersionEntry => ({ signerId: signer.id, kind: 'waiver', decision: null, signerName: signer.name });

describe('nextReadiness', () => {
  it('changes nothing for a campaign whose inputs did not move', () => {
    const next = nextReadiness(fresh, DEFAULT_LAUNCH_POLICY, EMPTY_ISSUE_STATS, [], []);
    expect(next).toMatchObject({ verdict: { readinessLevel: 'ReadyToLaunch', gate: 'cleared' }, verdictChanged: false, changed: false, seal: null });
    expect(next.report).toMatchObject({ version: 1, newVersion: false, sealedNow: false, sealState: 'open' });
  });

  it('makes a new version when the open set changes, even if the level does not', () => {
    const stored = { ...fresh, readinessLevel: 'ReadyWithIssues' as const, reportOpenDigest: 'xor:1:1:1' };
    const next = nextReadiness(stored, DEFAULT_LAUNCH_POLICY, withOpen('Low'), [], []);
    expect(next.verdict).toEqual({ readinessLevel: 'ReadyWithIssues', gate: 'cleared' });
    expect(next.report).toMatchObject({ version: 2, newVersion: true });
    expect(next.openDigest).toBe(openSetDigest(withOpen('Low')));
    expect(next).toMatchObject({ verdictChanged: false, changed: true });
  });

  it('blocks on an open Critical whatever the sign-offs', () => {
    const next = nextReadiness(fresh, DEFAULT_LAUNCH_POLICY, withOpen('Critical'), [ann], []);
    expect(next.verdict).toEqual({ readinessLevel: 'DoNotLaunch', gate: 'not-cleared' });
    expect(next).toMatchObject({ verdictChanged: true, changed: true });
    expect(next.report).toMatchObject({ version: 2, requiredCount: 1, sealState: 'open' });
  });

  it('awaits sign-off while a signer is missing, and seals once every signer is in', () => {
    expect(nextReadiness(fresh, DEFAULT_LAUNCH_POLICY, EMPTY_ISSUE_STATS, [ann, bob], [stamp(ann, 'approve')]).verdict.gate).toBe('awaiting-signoff');
    const next = nextReadiness(fresh, DEFAULT_LAUNCH_POLICY, EMPTY_ISSUE_STATS, [ann, bob], [stamp(ann, 'approve'), waiver(bob)]);
    expect(next.verdict).toEqual({ readinessLevel: 'ReadyToLaunch', gate: 'cleared' });
    expect(next.seal).toEqual({ version: 1, decision: 'approve' });
    expect(next.report).toEqual({
      version: 1,
      sealState: 'sealed',
      sealedVersion: 1,
      decision: 'approve',
      requiredCount: 2,
      signedCount: 1,
      waivedCount: 1,
      newVersion: false,
      sealedNow: true,
    });
    expect(next.signedBy).toEqual(['Ann']);
  });

  it('seals with reject when any stamp rejects', () => {
    const next = nextReadiness(fresh, DEFAULT_LAUNCH_POLICY, EMPTY_ISSUE_STATS, [ann, bob], [stamp(ann, 'approve'), stamp(bob, 'reject')]);
    expect(next.verdict.gate).toBe('not-cleared');
    expect(next.seal).toEqual({ version: 1, decision: 'reject' });
    expect(next.signedBy).toEqual(['Ann', 'Bob']);
  });

  it('keeps a seal without sealing again, and unseals when a signer is added', () => {
    const sealed: StoredReadiness = { ...fresh, sealState: 'sealed', sealedVersion: 1, sealDecision: 'approve' };
    const kept = nextReadiness(sealed, DEFAULT_LAUNCH_POLICY, EMPTY_ISSUE_STATS, [ann], [stamp(ann, 'approve')]);
    expect(kept.report).toMatchObject({ sealState: 'sealed', sealedNow: false });
    expect(kept.changed).toBe(false);
    const unsealed = nextReadiness(sealed, DEFAULT_LAUNCH_POLICY, EMPTY_ISSUE_STATS, [ann, bob], [stamp(ann, 'approve')]);
    expect(unsealed.report).toMatchObject({ sealState: 'open', sealedVersion: null, decision: null });
    expect(unsealed.verdict.gate).toBe('awaiting-signoff');
    expect(unsealed).toMatchObject({ verdictChanged: true, changed: true });
  });

  it('starts a new version unsealed, ignoring the entries of the old one', () => {
    const sealed: StoredReadiness = { ...fresh, sealState: 'sealed', sealedVersion: 1, sealDecision: 'approve' };
    const next = nextReadiness(sealed, DEFAULT_LAUNCH_POLICY, withOpen('Low'), [ann], [stamp(ann, 'approve')]);
    expect(next.report).toMatchObject({ version: 2, newVersion: true, sealState: 'open', signedCount: 0, sealedNow: false });
    expect(next.verdict).toEqual({ readinessLevel: 'ReadyWithIssues', gate: 'awaiting-signoff' });
  });

  it('with every signer removed, leaves the gate to the level and drops the seal', () => {
    const sealed: StoredReadiness = { ...fresh, sealState: 'sealed', sealedVersion: 1, sealDecision: 'reject', gate: 'not-cleared' };
    const next = nextReadiness(sealed, DEFAULT_LAUNCH_POLICY, EMPTY_ISSUE_STATS, [], []);
    expect(next.verdict.gate).toBe('cleared');
    expect(next.report).toMatchObject({ sealState: 'open', requiredCount: 0 });
  });
});
