/** What happens to a delivery after one attempt, given the retry schedule (waits between attempts). */
export type NextStep =
  | { kind: 'delivered' }
  | { kind: 'failed' }
  | { kind: 'retry'; waitMs: number };

/**
 * `attempt` is the number of the attempt just made (1-based). Attempts in all = waits + 1:
 * "1000,5000" → 3 attempts, waiting 1 s then 5 s.
 */
export function nextStep(delivered: boolean, attempt: number, schedule: readonly number[]): NextStep {
  if (delivered) return { kind: 'delivered' };
  if (attempt > schedule.length) return { kind: 'failed' };
  return { kind: 'retry', waitMs: schedule[attempt - 1]! };
}

export const maxAttempts = (schedule: readonly number[]): number => schedule.length + 1;
