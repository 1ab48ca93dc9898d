import { describe, expect, it } from 'vitest';
import { DEFAULT_LAUNCH_POLICY, evaluateLaunchPolicy, isOpenStatus, policyProblem, type IssueCount } from '../src/domain/launch-policy.ts';

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

  it('awaits sign-offs when some are missing and nothing blocks the launch', () => {
    expect(evaluateLaunchPolicy(DEFAULT_LAUNCH_POLICY, [], { missing: 1 })).toEqual({ readinessLevel: 'ReadyToLaunch', gate: 'awaiting-signoff' });
    expect(evaluateLaunchPolicy(DEFAULT_LAUNCH_POLICY, [open('Low')], { missing: 2 })).toEqual({ readinessLevel: 'ReadyWithIssues', gate: 'awaiting-signoff' });
    expect(evaluateLaunchPolicy(DEFAULT_LAUNCH_POLICY, [open('High')], { missing: 1 })).toEqual({ readinessLevel: 'AtRisk', gate: 'not-cleared' });
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
