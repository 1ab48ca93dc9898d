import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** Gaps at least this long are what a window reports (a healthy delivery takes 2–6 ms here). */
export const REPORTED_PAUSE_MS = 10;

export interface PauseCount {
  /** Gaps of at least `REPORTED_PAUSE_MS` that ended inside the window. */
  count: number;
  /** The longest of them, ms (0 when there were none). */
  worstMs: number;
}

export interface MachinePauses {
  /** The pauses that ended between the two epoch times. */
  during(fromMs: number, toMs: number): PauseCount;
  stop(): void;
}

/**
 * Watches how long this machine keeps an idle process from running, for as long as the benchmark
 * runs: `pause-probe.mjs stream`, a separate process that only wakes on a 1 ms timer, prints each
 * gap between its wake-ups above 6 ms. It computes and allocates nothing, so a gap is time in
 * which no core was free for it: every core busy with other work (both cores saturated for a
 * moment on this 2-core VM delayed a waking process by up to ~20 ms), or the whole machine
 * paused. Every process of the system stood still as long then, so a latency window's tail is
 * read beside the pauses that fell in it.
 */
export function watchMachinePauses(): MachinePauses {
  const script = fileURLToPath(new URL('./pause-probe.mjs', import.meta.url));
  const child = spawn(process.execPath, [script, 'stream'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const gaps: Array<[number, number]> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const gap = JSON.parse(line) as [number, number];
    if (gap[1] >= REPORTED_PAUSE_MS) gaps.push(gap);
  });
  return {
    during(fromMs, toMs) {
      const inside = gaps.filter(([at]) => at >= fromMs && at <= toMs);
      return { count: inside.length, worstMs: inside.reduce((a, [, ms]) => Math.max(a, ms), 0) };
    },
    stop() {
      child.kill();
    },
  };
}
