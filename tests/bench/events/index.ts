import { runBenchEntry, type BenchCliArgs } from '../lib/bench-entry.ts';
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
 * still makes the whole run exit 1 (lib/bench-entry.ts).
 */
export type EventsCliArgs = Pick<BenchCliArgs, 'quick' | 'only' | 'no-write' | 'note'>;

/** The whole events run normally takes 2–3 minutes. */
const RUN_DEADLINE_MS = 8 * 60_000;

export async function runEventsBench(args: EventsCliArgs): Promise<void> {
  const settings: EventsSettings = { ...DEFAULT_EVENTS_SETTINGS, ...(args.quick ? QUICK_EVENTS_SETTINGS : {}) };
  await runBenchEntry({
    name: 'events',
    args,
    deadlineMs: RUN_DEADLINE_MS,
    run: (addUndo) => runEvents(settings, addUndo),
    markdown: (report, command) => eventsMarkdown(report, command, args.note),
  });
}
