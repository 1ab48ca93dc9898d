/** Waits between tries of a job: quick at first, then up to an hour (INTEGRATION_MAX_ATTEMPTS bounds the tries). */
const WAITS_MS = [1_000, 5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000];

/** The wait after the `attempt`-th try failed (1-based), with ±10 % jitter so retries of many jobs spread out. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = WAITS_MS[Math.min(Math.max(attempt, 1), WAITS_MS.length) - 1]!;
  return Math.round(base * (0.9 + random() * 0.2));
}
