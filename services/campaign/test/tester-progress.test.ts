import { describe, expect, it } from 'vitest';
import { progressAfterCompletion } from '../src/domain/tester-progress.ts';

// The rule alone; recording completions and TesterCompleted are covered by testers.test.ts.
describe('progressAfterCompletion', () => {
  it('starts a tester while required tasks are left, keeping its latest verdict', () => {
    expect(progressAfterCompletion({ completed: false, verdict: 'ok' }, 2, null)).toEqual({ status: 'Started', verdict: 'ok', completedNow: false });
  });

  it('completes the tester when no required task is left, with the verdict just given', () => {
    expect(progressAfterCompletion({ completed: false, verdict: 'ok' }, 0, 'ship it')).toEqual({ status: 'Completed', verdict: 'ship it', completedNow: true });
  });

  it('completes once: a completed tester stays completed and does not complete again', () => {
    expect(progressAfterCompletion({ completed: true, verdict: null }, 1, null)).toEqual({ status: 'Completed', verdict: null, completedNow: false });
    expect(progressAfterCompletion({ completed: true, verdict: null }, 0, 'again')).toEqual({ status: 'Completed', verdict: 'again', completedNow: false });
  });
});
