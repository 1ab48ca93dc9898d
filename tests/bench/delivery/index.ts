import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../../scripts/lib/services.ts';
import { runBenchEntry, systemCliSettings, type BenchCliArgs } from '../lib/bench-entry.ts';
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
 * `--only=delivery` it exits the process; otherwise it returns so run.ts goes on (lib/bench-entry.ts).
 */
export interface DeliveryCliArgs extends BenchCliArgs {
  'delivery-replicas'?: string | undefined;
}

const FINDINGS_FILE = path.join(REPO_ROOT, 'tests', 'bench', 'delivery', 'FINDINGS.md');
/** The whole delivery run normally takes 4–6 minutes. */
const RUN_DEADLINE_MS = 12 * 60_000;

export async function runDeliveryBench(args: DeliveryCliArgs): Promise<void> {
  const { replicas, ...system } = systemCliSettings(args, 'delivery-replicas', DEFAULT_DELIVERY_SETTINGS.deliveryReplicas);
  const settings: DeliverySettings = { ...DEFAULT_DELIVERY_SETTINGS, ...(args.quick ? QUICK_DELIVERY_SETTINGS : {}), ...system, deliveryReplicas: replicas };
  await runBenchEntry({
    name: 'delivery',
    args,
    deadlineMs: RUN_DEADLINE_MS,
    run: (addUndo) => runDelivery(settings, addUndo),
    markdown: (report, command) => deliveryMarkdown(report, command, args.note, existsSync(FINDINGS_FILE) ? readFileSync(FINDINGS_FILE, 'utf8') : undefined),
  });
}
