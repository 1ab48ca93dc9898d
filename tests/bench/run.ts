/**
 * `npm run bench` (root: turbo → this workspace's `bench` script → `tsx bench/run.ts`).
 *
 * Starts the services, measures, prints a markdown report and writes it into
 * docs/benchmarks.md between its markers, then stops every process it started and drops every
 * schema it created — also on Ctrl-C, on SIGTERM and when the whole run overruns its deadline.
 *
 * Options (run the workspace script directly to pass them: `npm run bench -w tests -- --quick`):
 *   --quick            short runs (1 s warm-up, 3 s measured) to check the harness; docs untouched
 *   --only=list|create one scenario; docs untouched
 *   --only=foundation  both scenarios alone (the foundation section is written unless --quick/--no-write)
 *   --only=events|delivery|integrations  one benchmark alone (its section is written unless --quick/--no-write)
 *   --only=scale       the scale benchmark (tests/bench/scale), never part of a plain run
 *   --scale=FRACTION   its data set as a fraction of the issue's (default 1)
 *   --no-write         print only
 *   --cpu-prof=DIR     profile the services (inspector), DIR/<service>-<pid>.cpuprofile written at stop
 *   --note=TEXT        a line quoted under the machine facts (e.g. "machine shared with test runs")
 *   --service-env=K=V  an extra environment variable for the services (repeatable), e.g.
 *                      DB_POOL_MAX=20 to compare pool sizes; listed in the report's settings
 *   --delivery-replicas=N  delivery service processes in the delivery benchmark (default 2,
 *                      the chart's replicaCount)
 *   --integration-replicas=N  integration service processes in the integration benchmark
 *                      (default 2, the chart's replicaCount)
 *   --rate=N           the delivery or integration benchmark's open-loop rate instead of the
 *                      target's 100/s: like against like on a machine too slow for it; docs untouched
 * Exit status: 0 when the run completed (whether or not every target was met), 1 on an error.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from '../../scripts/lib/services.ts';
import { DEFAULT_SETTINGS, foundationMarkdown, runFoundation, type FoundationSettings } from './foundation.ts';
import { writeSection } from './lib/report.ts';
import { createCleanup } from './lib/cleanup.ts';

const DOCS_FILE = path.join(REPO_ROOT, 'docs', 'benchmarks.md');
/** The whole run, startup to cleanup, normally takes 4–5 minutes. */
const RUN_DEADLINE_MS = 15 * 60_000;
const CLEANUP_DEADLINE_MS = 60_000;

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    note: { type: 'string' },
    'service-env': { type: 'string', multiple: true },
    'delivery-replicas': { type: 'string' },
    'integration-replicas': { type: 'string' },
    scale: { type: 'string' },
    rate: { type: 'string' },
  },
  strict: true,
});
if (args.only === undefined || args.only === 'events') await (await import('./events/index.ts')).runEventsBench(args); // tests/bench/events: exits here with --only=events
if (args.only === undefined || args.only === 'delivery') await (await import('./delivery/index.ts')).runDeliveryBench(args); // tests/bench/delivery: exits here with --only=delivery
if (args.only === undefined || args.only === 'integrations') await (await import('./integrations/index.ts')).runIntegrationsBench(args); // tests/bench/integrations: exits here with --only=integrations
if (args.only === 'scale') await (await import('./scale/index.ts')).runScaleBench(args); // tests/bench/scale: exits here
if (args.only !== undefined && args.only !== 'list' && args.only !== 'create' && args.only !== 'foundation') {
  console.error(`--only must be events, delivery, integrations, scale, foundation, list or create, not ${args.only}`);
  process.exit(2);
}

const serviceEnv: Record<string, string> = {};
for (const kv of args['service-env'] ?? []) {
  const eq = kv.indexOf('=');
  if (eq <= 0) {
    console.error(`--service-env takes KEY=VALUE, not ${kv}`);
    process.exit(2);
  }
  serviceEnv[kv.slice(0, eq)] = kv.slice(eq + 1);
}

const settings: FoundationSettings = {
  ...DEFAULT_SETTINGS,
  ...(args.quick ? { warmupS: 1, durationS: 3, openWarmupS: 0.5, openDurationS: 3 } : {}),
  only: args.only === 'foundation' ? undefined : (args.only as FoundationSettings['only']),
  cpuProfDir: args['cpu-prof'] ? path.resolve(args['cpu-prof']) : undefined,
  serviceEnv,
  // The raw-SQL baseline's pool mirrors the services' pool size.
  ...(serviceEnv.DB_POOL_MAX ? { sqlPoolMax: Number(serviceEnv.DB_POOL_MAX) } : {}),
};
if (settings.cpuProfDir) mkdirSync(settings.cpuProfDir, { recursive: true });
const write = !args.quick && !args['no-write'] && settings.only === undefined;

// Everything started registers how to undo it; undone in reverse order, once.
const { add: addUndo, run: cleanup } = createCleanup('bench', CLEANUP_DEADLINE_MS);

async function abort(reason: string, code: number): Promise<never> {
  console.error(`[bench] ${reason}; stopping`);
  await cleanup();
  process.exit(code);
}
process.once('SIGINT', () => void abort('interrupted', 130));
process.once('SIGTERM', () => void abort('terminated', 143));
const overrun = setTimeout(() => void abort(`the run overran ${RUN_DEADLINE_MS / 60_000} minutes`, 1), RUN_DEADLINE_MS);
overrun.unref();

let exitCode = 0;
try {
  const report = await runFoundation(settings, addUndo);
  const invocation = ['tsx bench/run.ts', ...process.argv.slice(2)].join(' ');
  const command = process.argv.length > 2 ? `npm run bench -w tests -- ${process.argv.slice(2).join(' ')}` : 'npm run bench';
  const markdown = foundationMarkdown(report, command, args.note);
  process.stdout.write(`\n${markdown}\n`);
  if (write) {
    writeSection(DOCS_FILE, 'foundation', markdown);
    console.error(`[bench] wrote the foundation section of ${path.relative(REPO_ROOT, DOCS_FILE)} (${invocation})`);
  } else {
    console.error('[bench] docs/benchmarks.md left as it was (--quick, --only or --no-write)');
  }
  const missed = report.checks.filter((c) => !c.pass);
  console.error(`[bench] ${report.checks.length - missed.length} of ${report.checks.length} targets met${missed.length ? `; missed: ${missed.map((c) => c.target).join('; ')}` : ''}`);
} catch (err) {
  console.error(`[bench] failed: ${(err as Error).stack ?? err}`);
  exitCode = 1;
} finally {
  await cleanup();
  clearTimeout(overrun);
}
process.exit(exitCode);
