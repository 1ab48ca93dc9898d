import { runBenchEntry, systemCliSettings, type BenchCliArgs } from '../lib/bench-entry.ts';
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
 * `--only=integrations` it exits the process; otherwise it returns so run.ts goes on (lib/bench-entry.ts).
 */
export interface IntegrationsCliArgs extends BenchCliArgs {
  'integration-replicas'?: string | undefined;
}

/** The whole integration run normally takes 5–6 minutes (under a minute with --quick). */
const RUN_DEADLINE_MS = 12 * 60_000;

export async function runIntegrationsBench(args: IntegrationsCliArgs): Promise<void> {
  const { replicas, ...system } = systemCliSettings(args, 'integration-replicas', DEFAULT_INTEGRATIONS_SETTINGS.integrationReplicas);
  const settings: IntegrationsSettings = { ...DEFAULT_INTEGRATIONS_SETTINGS, ...(args.quick ? QUICK_INTEGRATIONS_SETTINGS : {}), ...system, integrationReplicas: replicas };
  await runBenchEntry({
    name: 'integrations',
    runName: 'integration',
    args,
    deadlineMs: RUN_DEADLINE_MS,
    run: (addUndo) => runIntegrations(settings, addUndo),
    markdown: (report, command) => integrationsMarkdown(report, command, args.note),
  });
}
