import { runBenchEntry, systemCliSettings, type BenchCliArgs } from '../lib/bench-entry.ts';
import { DEFAULT_SCALE_SETTINGS, QUICK_SCALE_SETTINGS, runScale, type ScaleSettings } from './bench.ts';
import { scaleMarkdown } from './markdown.ts';

/**
 * The scale benchmark's entry, dispatched from tests/bench/run.ts with `--only=scale` only (its
 * load takes minutes and gigabytes, so a plain `npm run bench` leaves it out). Honours
 * `--scale=<fraction>` (default 1: the full data set), `--quick`, `--no-write`,
 * `--note`, `--cpu-prof=DIR` and `--service-env=K=V`. Writes its section of docs/benchmarks.md
 * (`<!-- bench:scale:start -->` … `end`) after a complete run; cleans up after itself, except
 * that with `SCALE_BENCH_KEEP=1` in its environment it leaves the loaded schemas behind, renamed
 * `<schema>_kept`, and prints their names and the statement that drops them (to EXPLAIN on the
 * loaded data after the run; an environment variable because run.ts takes no unknown option).
 */
export interface ScaleCliArgs extends BenchCliArgs {
  scale?: string | undefined;
}

/** Loading the full data set takes up to 10 minutes, measuring about 8 more. */
const RUN_DEADLINE_MS = 45 * 60_000;

export async function runScaleBench(args: ScaleCliArgs): Promise<void> {
  const scale = args.scale === undefined ? 1 : Number(args.scale);
  if (!(scale > 0 && scale <= 1)) {
    console.error(`--scale takes a fraction in (0, 1], not ${args.scale}`);
    process.exit(2);
  }
  // One process per service (no replica option): the figures are per process, RSS included.
  const { replicas: _one, ...system } = systemCliSettings<'scale-replicas'>(args, 'scale-replicas', 1);
  const keepSchemas = process.env.SCALE_BENCH_KEEP === '1';
  const settings: ScaleSettings = { ...DEFAULT_SCALE_SETTINGS, ...(args.quick ? QUICK_SCALE_SETTINGS : {}), ...system, scale, keepSchemas };
  await runBenchEntry({
    name: 'scale',
    args,
    deadlineMs: RUN_DEADLINE_MS,
    run: (addUndo) => runScale(settings, addUndo),
    markdown: (report, command) => scaleMarkdown(report, command, args.note),
  });
}
