import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../../scripts/lib/services.ts';
import { createCleanup, type Cleanup } from './cleanup.ts';
import { writeSection } from './report.ts';

/**
 * The entry shared by the benchmarks run.ts dispatches to (tests/bench/{events,delivery,integrations}/index.ts):
 * settings from the command line, cleanup, Ctrl-C/SIGTERM, the overrun deadline, the docs section,
 * and the targets met.
 */

/** The command-line options a benchmark entry reads (run.ts's parseArgs values). */
export interface BenchCliArgs {
  quick?: boolean | undefined;
  only?: string | undefined;
  'no-write'?: boolean | undefined;
  note?: string | undefined;
  'cpu-prof'?: string | undefined;
  'service-env'?: string[] | undefined;
  /** The latency runs' open-loop rate instead of the target's (a comparison on a slower machine); docs untouched. */
  rate?: string | undefined;
}

export const DOCS_FILE = path.join(REPO_ROOT, 'docs', 'benchmarks.md');
const CLEANUP_DEADLINE_MS = 60_000;

/** Registers how to undo something a benchmark started (lib/cleanup.ts). */
export type AddUndo = Cleanup['add'];

export interface BenchEntry<R extends { checks: ReadonlyArray<{ target: string; pass: boolean }> }> {
  /** The `--only=` value, the docs section's id and the log prefix's suffix (`[bench:NAME]`). */
  name: string;
  /** How the overrun message names the run (`the NAME run overran …`); default `name`. */
  runName?: string;
  args: BenchCliArgs;
  deadlineMs: number;
  run(addUndo: AddUndo): Promise<R>;
  /** The section, given the command that ran it. */
  markdown(report: R, command: string): string;
}

/**
 * Runs one benchmark, prints its section and writes it into docs/benchmarks.md (unless `--quick`
 * or `--no-write`), and undoes everything it started — on success, on failure, on Ctrl-C/SIGTERM
 * and when it overruns `deadlineMs`. Alone (`--only=NAME`) it exits the process (0 when the run
 * completed, whether or not the targets were met; 1 on an error); otherwise it returns so that
 * run.ts goes on with the other benchmarks, and an error here still makes the whole run exit 1.
 */
export async function runBenchEntry<R extends { checks: ReadonlyArray<{ target: string; pass: boolean }> }>(entry: BenchEntry<R>): Promise<void> {
  const { name, args, deadlineMs } = entry;
  const label = `bench:${name}`;
  const alone = args.only === name;
  const write = !args.quick && !args['no-write'] && args.rate === undefined;

  const { add: addUndo, run: cleanup } = createCleanup(label, CLEANUP_DEADLINE_MS);
  const abort = async (reason: string, code: number): Promise<never> => {
    console.error(`[${label}] ${reason}; stopping`);
    await cleanup();
    process.exit(code);
  };
  const onInt = () => void abort('interrupted', 130);
  const onTerm = () => void abort('terminated', 143);
  process.once('SIGINT', onInt);
  process.once('SIGTERM', onTerm);
  const overrun = setTimeout(() => void abort(`the ${entry.runName ?? name} run overran ${deadlineMs / 60_000} minutes`, 1), deadlineMs);
  overrun.unref();

  let failed = false;
  try {
    const report = await entry.run(addUndo);
    const argv = process.argv.slice(2);
    const command = argv.length ? `npm run bench -w tests -- ${argv.join(' ')}` : 'npm run bench';
    const markdown = entry.markdown(report, command);
    process.stdout.write(`\n${markdown}\n`);
    if (write) {
      writeSection(DOCS_FILE, name, markdown);
      console.error(`[${label}] wrote the ${name} section of ${path.relative(REPO_ROOT, DOCS_FILE)}`);
    } else {
      console.error(`[${label}] docs/benchmarks.md left as it was (--quick or --no-write)`);
    }
    const missed = report.checks.filter((c) => !c.pass);
    console.error(`[${label}] ${report.checks.length - missed.length} of ${report.checks.length} targets met${missed.length ? `; missed: ${missed.map((c) => c.target).join('; ')}` : ''}`);
  } catch (err) {
    console.error(`[${label}] failed: ${(err as Error).stack ?? err}`);
    failed = true;
  } finally {
    await cleanup();
    clearTimeout(overrun);
    process.removeListener('SIGINT', onInt);
    process.removeListener('SIGTERM', onTerm);
  }
  if (alone) process.exit(failed ? 1 : 0);
  // run.ts ends with process.exit(its own code): keep this failure in the final status.
  if (failed) process.once('exit', (code) => void (code === 0 && (process.exitCode = 1)));
}

/** What a benchmark of the whole system takes from `--service-env`, `--cpu-prof` and its `--NAME-replicas`. */
export interface SystemCliSettings {
  serviceEnv: Record<string, string>;
  /** `LOG_LEVEL` from `--service-env`, when given. */
  logLevel?: string;
  cpuProfDir: string | undefined;
  replicas: number;
  /** From `--rate`, when given. */
  rate?: number;
}

/**
 * Reads `--service-env=K=V` (malformed ones skipped), `--cpu-prof=DIR` (made if missing) and the
 * replica count option `replicasOption` (default `defaultReplicas`); exits 2 when the count is
 * not a whole number ≥ 1.
 */
export function systemCliSettings<O extends string>(args: BenchCliArgs & { [K in O]?: string | undefined }, replicasOption: O, defaultReplicas: number): SystemCliSettings {
  const serviceEnv: Record<string, string> = {};
  for (const kv of args['service-env'] ?? []) {
    const eq = kv.indexOf('=');
    if (eq > 0) serviceEnv[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const given: string | undefined = args[replicasOption];
  const replicas = given !== undefined ? Number(given) : defaultReplicas;
  if (!Number.isInteger(replicas) || replicas < 1) {
    console.error(`--${replicasOption} takes a whole number ≥ 1, not ${given}`);
    process.exit(2);
  }
  const cpuProfDir = args['cpu-prof'] ? path.resolve(args['cpu-prof']) : undefined;
  if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });
  const rate = args.rate !== undefined ? Number(args.rate) : undefined;
  if (rate !== undefined && !(rate > 0)) {
    console.error(`--rate takes a number > 0, not ${args.rate}`);
    process.exit(2);
  }
  return { serviceEnv, ...(serviceEnv.LOG_LEVEL ? { logLevel: serviceEnv.LOG_LEVEL } : {}), cpuProfDir, replicas, ...(rate !== undefined ? { rate } : {}) };
}
