import type { AdminTester } from '@preflight/contract';

/*
 * A tester's progress through its campaign's tasks (README "Testers"). Pure; storage/testers.ts
 * records completions and applies this.
 */

/** Invited: no task done yet; Started: some; Completed: every required task (once, for good). The words are the admin API's. */
export type TesterStatus = AdminTester['status'];

/** The tester after one of its tasks was completed. */
export interface TesterProgress {
  status: TesterStatus;
  /** The verdict given with this completion, else the tester's latest. */
  verdict: string | null;
  /** This completion completed the tester (TesterCompleted is due unless it is a preview tester). */
  completedNow: boolean;
}

/**
 * `requiredLeft`: the campaign's required tasks the tester has still not done, this completion
 * counted. A tester completes when none is left, once: a required task added afterwards does not
 * take it back.
 */
export function progressAfterCompletion(tester: { completed: boolean; verdict: string | null }, requiredLeft: number, verdict: string | null): TesterProgress {
  const completedNow = !tester.completed && requiredLeft === 0;
  return {
    status: tester.completed || completedNow ? 'Completed' : 'Started',
    verdict: verdict ?? tester.verdict,
    completedNow,
  };
}
