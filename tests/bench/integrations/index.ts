import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../../scripts/lib/services.ts';
import { createCleanup } from '../lib/cleanup.ts';
import { writeSection } from '../lib/report.ts';
import { DEFAULT_INTEGRATIONS_SETTINGS, QUICK_INTEGRATIONS_SETTINGS, runIntegrations, type IntegrationsSettings } from './bench.ts';
import { integrationsMarkdown } from './markdown.ts';

/**
 * The integration benchmark's entry, dispatched from tests/bench/run.ts: runs with every full
 * `npm run bench` and alone with `--only=integrations`. Honours `--quick` (a few seconds per
 * phase, docs untouched), `--no-write`, `--note`, `--cpu-prof=DIR`, `--service-env=K=V` and
 * `--integration-replicas=N`. Writes its section of docs/benchmarks.md
 * (`<!-- bench:integrations:start -->` … `end`) after a complete run.
 *
 * It cleans up after itself (provider stand-ins, gateway pool, services, schemas, stream) — on
 * success, on failure, on Ctrl-C/SIGTERM and when it overruns its deadline. With
 * `--only=integrations` it exits the process; otherwise it returns so run.ts goes on.
 */
export interface IntegrationsCliArgs {
  quick?: boolean | undefined;
  only?: string | undefined;
  'no-write'?: boolean | undefined;
  note?: string | undefined;
  'cpu-prof'?: string | undefined;
  'service-env'?: string[] | undefined;
  'integration-replicas'?: string | undefined;
}

const DOCS_FILE = path.join(REPO_ROOT, 'docs', 'benchmarks.md');
/** The whole integration run normally takes 5–6 minutes (under a minute with --quick). */
const RUN_DEADLINE_MS = 12 * 60_000;
const CLEANUP_DEADLINE_MS = 60_000;

export async function runIntegrationsBench(args: IntegrationsCliArgs): Promise<void> {
  const alone = args.only === 'integrations';
  const serviceEnv: Record<string, string> = {};
  for (const kv of args['service-env'] ?? []) {
    const eq = kv.indexOf('=');
    if (eq > 0) serviceEnv[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const settings: IntegrationsSettings = {
    ...DEFAULT_INTEGRATIONS_SETTINGS,
    ...(args.quick ? QUICK_INTEGRATIONS_SETTINGS : {}),
    serviceEnv,
    ...(serviceEnv.LOG_LEVEL ? { logLevel: serviceEnv.LOG_LEVEL } : {}),
    cpuProfDir: args['cpu-prof'] ? path.resolve(args['cpu-prof']) : undefined,
    ...(args['integration-replicas'] !== undefined ? { integrationReplicas: Number(args['integration-replicas']) } : {}),
  };
  if (!Number.isInteger(settings.integrationReplicas) || settings.integrationReplicas < 1) {
    console.error(`--integration-replicas takes a whole number ≥ 1, not ${args['integration-replicas']}`);
    process.exit(2);
  }
  if (settings.cpuProfDir) mkdirSync(settings.cpuProfDir, { recursive: true });
  const write = !args.quick && !args['no-write'];

  const { add: addUndo, run: cleanup } = createCleanup('bench:integrations', CLEANUP_DEADLINE_MS);
  const abort = async (reason: string, code: number): Promise<never> => {
    console.error(`[bench:integrations] ${reason}; stopping`);
    await cleanup();
    process.exit(code);
  };
  const onInt = () => void abort('interrupted', 130);
  const onTerm = () => void abort('terminated', 143);
  process.once('SIGINT', onInt);
  process.once('SIGTERM', onTerm);
  const overrun = setTimeout(() => void abort(`the integration run overran ${RUN_DEADLINE_MS / 60_000} minutes`, 1), RUN_DEADLINE_MS);
  overrun.unref();

  let failed = false;
  try {
    const report = await runIntegrations(settings, addUndo);
    const argv = process.argv.slice(2);
    const command = argv.length ? `npm run bench -w tests -- ${argv.join(' ')}` : 'npm run bench';
    const markdown = integrationsMarkdown(report, command, args.note);
    process.stdout.write(`\n${markdown}\n`);
    if (write) {
      writeSection(DOCS_FILE, 'integrations', markdown);
      console.error(`[bench:integrations] wrote the integrations section of ${path.relative(REPO_ROOT, DOCS_FILE)}`);
    } else {
      console.error('[bench:integrations] docs/benchmarks.md left as it was (--quick or --no-write)');
    }
    const missed = report.checks.filter((c) => !c.pass);
    console.error(`[bench:integrations] ${report.checks.length - missed.length} of ${report.checks.length} targets met${missed.length ? `; missed: ${missed.map((c) => c.target).join('; ')}` : ''}`);
  } catch (err) {
    console.error(`[bench:integrations] failed: ${(err as Error).stack ?? err}`);
    failed = true;
  } finally {
    await cleanup();
    clearTimeout(overrun);
    process.removeListener('SIGINT', onInt);
    process.removeListener('SIGTERM', onTerm);
  }
  if (alone) process.exit(failed ? 1 : 0);
  if (failed) process.once('exit', (code) => void (code === 0 && (process.exitCode = 1)));
}
