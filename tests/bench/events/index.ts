import path from 'node:path';
import { REPO_ROOT } from '../../../scripts/lib/services.ts';
import { writeSection } from '../lib/report.ts';
import { createCleanup } from '../lib/cleanup.ts';
import { DEFAULT_EVENTS_SETTINGS, QUICK_EVENTS_SETTINGS, runEvents, type EventsSettings } from './bench.ts';
import { eventsMarkdown } from './markdown.ts';

/**
 * The events benchmark's entry, dispatched from tests/bench/run.ts: runs with every full
 * `npm run bench` (before the foundation benchmark) and alone with `--only=events`. Honours
 * `--quick` (short runs, docs untouched), `--no-write` and `--note`. Writes its section of
 * docs/benchmarks.md (`<!-- bench:events:start -->` … `end`) after a complete run.
 *
 * It cleans up after itself (consumers, relays, connections, schemas, stream) — on success, on
 * failure, on Ctrl-C/SIGTERM and when it overruns its deadline. With `--only=events` it exits
 * the process (0 when the run completed, whether or not the targets were met; 1 on an error);
 * otherwise it returns so that run.ts goes on with the other benchmarks, and an error here
 * still makes the whole run exit 1.
 */
export interface EventsCliArgs {
  quick?: boolean | undefined;
  only?: string | undefined;
  'no-write'?: boolean | undefined;
  note?: string | undefined;
}

const DOCS_FILE = path.join(REPO_ROOT, 'docs', 'benchmarks.md');
/** The whole events run normally takes 2–3 minutes. */
const RUN_DEADLINE_MS = 8 * 60_000;
const CLEANUP_DEADLINE_MS = 60_000;

export async function runEventsBench(args: EventsCliArgs): Promise<void> {
  const alone = args.only === 'events';
  const settings: EventsSettings = { ...DEFAULT_EVENTS_SETTINGS, ...(args.quick ? QUICK_EVENTS_SETTINGS : {}) };
  const write = !args.quick && !args['no-write'];

  const { add: addUndo, run: cleanup } = createCleanup('bench:events', CLEANUP_DEADLINE_MS);
  const abort = async (reason: string, code: number): Promise<never> => {
    console.error(`[bench:events] ${reason}; stopping`);
    await cleanup();
    process.exit(code);
  };
  const onInt = () => void abort('interrupted', 130);
  const onTerm = () => void abort('terminated', 143);
  process.once('SIGINT', onInt);
  process.once('SIGTERM', onTerm);
  const overrun = setTimeout(() => void abort(`the events run overran ${RUN_DEADLINE_MS / 60_000} minutes`, 1), RUN_DEADLINE_MS);
  overrun.unref();

  let failed = false;
  try {
    const report = await runEvents(settings, addUndo);
    const argv = process.argv.slice(2);
    const command = argv.length ? `npm run bench -w tests -- ${argv.join(' ')}` : 'npm run bench';
    const markdown = eventsMarkdown(report, command, args.note);
    process.stdout.write(`\n${markdown}\n`);
    if (write) {
      writeSection(DOCS_FILE, 'events', markdown);
      console.error(`[bench:events] wrote the events section of ${path.relative(REPO_ROOT, DOCS_FILE)}`);
    } else {
      console.error('[bench:events] docs/benchmarks.md left as it was (--quick or --no-write)');
    }
    const missed = report.checks.filter((c) => !c.pass);
    console.error(`[bench:events] ${report.checks.length - missed.length} of ${report.checks.length} targets met${missed.length ? `; missed: ${missed.map((c) => c.target).join('; ')}` : ''}`);
  } catch (err) {
    console.error(`[bench:events] failed: ${(err as Error).stack ?? err}`);
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
