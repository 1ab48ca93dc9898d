import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../../scripts/lib/services.ts';
import { writeSection } from '../lib/report.ts';
import { createCleanup } from '../lib/cleanup.ts';
import { DEFAULT_DELIVERY_SETTINGS, QUICK_DELIVERY_SETTINGS, runDelivery, type DeliverySettings } from './bench.ts';
import { deliveryMarkdown } from './markdown.ts';

/**
 * The delivery benchmark's entry, dispatched from tests/bench/run.ts: runs with every full
 * `npm run bench` and alone with `--only=delivery`. Honours `--quick` (short runs, docs
 * untouched), `--no-write`, `--note`, `--cpu-prof=DIR`, `--service-env=K=V` and `--delivery-replicas=N`. Writes its
 * section of docs/benchmarks.md (`<!-- bench:delivery:start -->` … `end`) after a complete
 * run; tests/bench/delivery/FINDINGS.md, when present, is appended to the section.
 *
 * It cleans up after itself (receivers, NATS connection, services, schemas, stream) — on
 * success, on failure, on Ctrl-C/SIGTERM and when it overruns its deadline. With
 * `--only=delivery` it exits the process; otherwise it returns so run.ts goes on.
 */
export interface DeliveryCliArgs {
  quick?: boolean | undefined;
  only?: string | undefined;
  'no-write'?: boolean | undefined;
  note?: string | undefined;
  'cpu-prof'?: string | undefined;
  'service-env'?: string[] | undefined;
  'delivery-replicas'?: string | undefined;
}

const DOCS_FILE = path.join(REPO_ROOT, 'docs', 'benchmarks.md');
const FINDINGS_FILE = path.join(REPO_ROOT, 'tests', 'bench', 'delivery', 'FINDINGS.md');
/** The whole delivery run normally takes 4–6 minutes. */
const RUN_DEADLINE_MS = 12 * 60_000;
const CLEANUP_DEADLINE_MS = 60_000;

export async function runDeliveryBench(args: DeliveryCliArgs): Promise<void> {
  const alone = args.only === 'delivery';
  const serviceEnv: Record<string, string> = {};
  for (const kv of args['service-env'] ?? []) {
    const eq = kv.indexOf('=');
    if (eq > 0) serviceEnv[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const settings: DeliverySettings = {
    ...DEFAULT_DELIVERY_SETTINGS,
    ...(args.quick ? QUICK_DELIVERY_SETTINGS : {}),
    serviceEnv,
    ...(serviceEnv.LOG_LEVEL ? { logLevel: serviceEnv.LOG_LEVEL } : {}),
    cpuProfDir: args['cpu-prof'] ? path.resolve(args['cpu-prof']) : undefined,
    ...(args['delivery-replicas'] !== undefined ? { deliveryReplicas: Number(args['delivery-replicas']) } : {}),
  };
  if (!Number.isInteger(settings.deliveryReplicas) || settings.deliveryReplicas < 1) {
    console.error(`--delivery-replicas takes a whole number ≥ 1, not ${args['delivery-replicas']}`);
    process.exit(2);
  }
  if (settings.cpuProfDir) mkdirSync(settings.cpuProfDir, { recursive: true });
  const write = !args.quick && !args['no-write'];

  const { add: addUndo, run: cleanup } = createCleanup('bench:delivery', CLEANUP_DEADLINE_MS);
  const abort = async (reason: string, code: number): Promise<never> => {
    console.error(`[bench:delivery] ${reason}; stopping`);
    await cleanup();
    process.exit(code);
  };
  const onInt = () => void abort('interrupted', 130);
  const onTerm = () => void abort('terminated', 143);
  process.once('SIGINT', onInt);
  process.once('SIGTERM', onTerm);
  const overrun = setTimeout(() => void abort(`the delivery run overran ${RUN_DEADLINE_MS / 60_000} minutes`, 1), RUN_DEADLINE_MS);
  overrun.unref();

  let failed = false;
  try {
    const report = await runDelivery(settings, addUndo);
    const argv = process.argv.slice(2);
    const command = argv.length ? `npm run bench -w tests -- ${argv.join(' ')}` : 'npm run bench';
    const findings = existsSync(FINDINGS_FILE) ? readFileSync(FINDINGS_FILE, 'utf8') : undefined;
    const markdown = deliveryMarkdown(report, command, args.note, findings);
    process.stdout.write(`\n${markdown}\n`);
    if (write) {
      writeSection(DOCS_FILE, 'delivery', markdown);
      console.error(`[bench:delivery] wrote the delivery section of ${path.relative(REPO_ROOT, DOCS_FILE)}`);
    } else {
      console.error('[bench:delivery] docs/benchmarks.md left as it was (--quick or --no-write)');
    }
    const missed = report.checks.filter((c) => !c.pass);
    console.error(`[bench:delivery] ${report.checks.length - missed.length} of ${report.checks.length} targets met${missed.length ? `; missed: ${missed.map((c) => c.target).join('; ')}` : ''}`);
  } catch (err) {
    console.error(`[bench:delivery] failed: ${(err as Error).stack ?? err}`);
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
