import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const workload = fileURLToPath(new URL('./fixtures/pretenuring-workload.ts', import.meta.url));

/**
 * Bytes young-generation GCs promoted into the old generation in the workload's steady state,
 * leaving out its first few GCs (they still promote the burst's last survivors).
 */
async function promotedInSteadyState(mode: 'flags' | 'defaults'): Promise<number> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', '--min-semi-space-size=1', '--max-semi-space-size=1', '--trace-gc-nvp', workload, mode],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const steady = stdout.slice(stdout.indexOf('STEADY'));
  expect(steady).toContain('made 2000000 rows');
  const youngGcs = steady.split('\n').filter((line) => line.includes(' gc=s '));
  expect(youngGcs.length).toBeGreaterThan(100);
  return youngGcs.slice(4).reduce((sum, line) => sum + Number(/\bpromoted=(\d+)/.exec(line)?.[1] ?? 0), 0);
}

describe('applyRuntimeFlags', () => {
  it('keeps short-lived results young after a burst in which they lived long', async () => {
    const [withFlags, withDefaults] = await Promise.all([promotedInSteadyState('flags'), promotedInSteadyState('defaults')]);
    // V8's defaults pretenure the page's sites during the burst; from then on every page is
    // born old and drags its rows through each young GC (megabytes promoted).
    expect(withDefaults).toBeGreaterThan(1024 * 1024);
    // With pretenuring off, the rows die young: next to nothing is promoted.
    expect(withFlags).toBeLessThan(64 * 1024);
  }, 60_000);
});
