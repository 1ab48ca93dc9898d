import { describe, expect, it } from 'vitest';
import { DEFAULT_LAUNCH_POLICY, evaluateLaunchPolicy, isOpenStatus, policyProblem, sealDecision, type IssueCount } from '../src/domain/launch-policy.ts';

const open = (severity: IssueCount['severity'], count = 1): IssueCount => ({ severity, status: 'New', count });
const closed = (severity: IssueCount['severity'], status = 'Closed'): IssueCount => ({ severity, status, count: 1 });

// The pure rules; the projection and the HTTP behaviour are covered by readiness.test.ts.
describe('evaluateLaunchPolicy (default policy)', () => {
  const cases: Array<[string, IssueCount[], string, string]> = [
    ['no issues', [], 'ReadyToLaunch', 'cleared'],
    ['only closed ones', [closed('Critical'), closed('High', 'WontFix'), closed('Critical', 'Duplicate'), closed('High', 'RetestFixed')], 'ReadyToLaunch', 'cleared'],
    ['an open Low', [open('Low')], 'ReadyWithIssues', 'cleared'],
    ['an open issue of unknown severity', [open(null)], 'ReadyWithIssues', 'cleared'],
    ['an open High', [open('High'), open('Low')], 'AtRisk', 'not-cleared'],
    ['an open Critical', [open('Critical'), open('High')], 'DoNotLaunch', 'not-cleared'],
    ['a RetestFailed Critical', [{ severity: 'Critical', status: 'RetestFailed', count: 1 }], 'DoNotLaunch', 'not-cleared'],
  ];
  for (const [name, issues, level, gate] of cases) {
    it(`${name} → ${level}, ${gate}`, () => {
      expect(evaluateLaunchPolicy(DEFAULT_LAUNCH_POLICY, issues)).toEqual({ readinessLevel: level, gate });
    });
  }

  it('folds in the sign-offs: awaiting until sealed, cleared only by an approved seal of a launchable level', () => {
    const signers = (seal: null | 'approve' | 'reject') => ({ required: 2, seal: seal && { decision: seal } });
    expect(evaluateLaunchPolicy(DEFAULT_LAUNCH_POLICY, [], signers(null))).toEqual({ readinessLevel: 'ReadyToLaunch', gate: 'awaiting-signoff' });
    expect(evaluateLaunchPolicy(DEFAULT_LAUNCH_POLICY, [open('Low')], signers(null))).toEqual({ readinessLevel: 'ReadyWithIssues', gate: 'awaiting-signoff' });
    expect(evaluateLaunchPolicy(DEFAULT_LAUNCH_POLICY, [open('Low')], signers('approve'))).toEqual({ readinessLevel: 'ReadyWithIssues', gate: 'cleared' });
    expect(evaluateLaunchPolicy(DEFAULT_LAUNCH_POLICY, [], signers('approve'))).toEqual({ readinessLevel: 'ReadyToLaunch', gate: 'cleared' });
    expect(evaluateLaunchPolicy(DEFAULT_LAUNCH_POLICY, [open('Low')], signers('reject'))).toEqual({ readinessLevel: 'ReadyWithIssues', gate: 'not-cleared' });
    expect(evaluateLaunchPolicy(DEFAULT_LAUNCH_POLICY, [open('High')], signers(null))).toEqual({ readinessLevel: 'AtRisk', gate: 'not-cleared' });
    expect(evaluateLaunchPolicy(DEFAULT_LAUNCH_POLICY, [open('Critical')], signers('approve'))).toEqual({ readinessLevel: 'DoNotLaunch', gate: 'not-cleared' });
    // No signer: as without sign-offs.
    expect(evaluateLaunchPolicy(DEFAULT_LAUNCH_POLICY, [open('Low')], { required: 0, seal: null }).gate).toBe('cleared');
  });

  it('decides a seal: approve only when every stamp approves; waivers do not vote', () => {
    expect(sealDecision([{ decision: 'approve' }, { decision: 'approve' }])).toBe('approve');
    expect(sealDecision([{ decision: 'approve' }, { decision: 'reject' }])).toBe('reject');
    expect(sealDecision([])).toBe('approve');
  });
});

describe('thresholds', () => {
  const policy = { doNotLaunch: { minSeverity: 'High', maxOpen: 1 }, atRisk: { minSeverity: 'Low', maxOpen: 2 } } as const;
  it('counts issues at or above the severity and compares with maxOpen', () => {
    expect(evaluateLaunchPolicy(policy, [open('Critical')]).readinessLevel).toBe('ReadyWithIssues');
    expect(evaluateLaunchPolicy(policy, [open('Critical'), open('High')]).readinessLevel).toBe('DoNotLaunch');
    expect(evaluateLaunchPolicy(policy, [open('Medium', 2), open('Low')]).readinessLevel).toBe('AtRisk');
    expect(evaluateLaunchPolicy(policy, [open('Trivial', 5), open('Low', 2)]).readinessLevel).toBe('ReadyWithIssues');
  });

  it('refuses an AtRisk threshold more severe than the DoNotLaunch one', () => {
    expect(policyProblem({ doNotLaunch: { minSeverity: 'High', maxOpen: 0 }, atRisk: { minSeverity: 'Critical', maxOpen: 0 } })?.field).toBe('atRisk.minSeverity');
    expect(policyProblem({ doNotLaunch: { minSeverity: 'High', maxOpen: 0 }, atRisk: { minSeverity: 'High', maxOpen: 0 } })).toBeUndefined();
  });

  it('counts unknown statuses as open', () => {
    expect(isOpenStatus('SomethingNew')).toBe(true);
    expect(isOpenStatus('Duplicate')).toBe(false);
  });
});
