/**
 * `npm run chaos` (root; not part of `npm test`): the fault suite of issue 22.
 *
 * Starts a Postgres cluster, a redis-server and a nats-server of its own on free ports (never
 * the shared ones on 5432/6379/4222), the whole system against them (every service its own
 * process), files issues through the gateway at a steady rate, and meanwhile kills each service
 * (kill -9, then the system's restart), NATS (kill -9, restart on the same JetStream store),
 * Redis (kill -9, restart empty) and Postgres (immediate stop, start) in turn. It then counts,
 * per fault, issues acknowledged vs stored, sequence gaps, IssueCreated deliveries lost and
 * duplicated at a webhook receiver (and Slack announcements), the client-visible outage and
 * what the client got instead of a 201; prints the table with a pass/fail per target, writes it
 * into docs/reliability.md between `<!-- chaos:start -->` and `<!-- chaos:end -->`, and exits 1
 * when a target was missed. Everything it started is stopped and removed on success, failure,
 * Ctrl-C, SIGTERM and when the run overruns its deadline. Service warnings and errors go to
 * .preflight/chaos/last-run.log (kept).
 *
 * Options (`npm run chaos -- --rate=10 …`):
 *   --rate=N          issues/s (default 20)           --orgs=N, --campaigns=N  organisations, campaigns each (4, 2)
 *   --faults=a,b      a subset, in that order: gateway, campaign, issue, webhook, delivery, integration, nats, redis, postgres
 *   --baseline=S --settle=S --recovery=S --hold=S --drain=S   phase lengths (10, 3, 12, 2, 180)
 *   --keyed=F         share of filings with an Idempotency-Key of their own (default 0.5)
 *   --quick           3 s baseline, 5 s recovery (docs untouched)
 *   --no-slack        no Slack connections       --built   run the services' bundles
 *   --no-write        print only                 --note=TEXT  a line under the machine facts
 *   --deadline=MIN    whole-run deadline (default 30)
 * Exit status: 0 every target met, 1 a target missed, 2 the run failed or overran, 130/143 interrupted.
 */
import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createCleanup } from '../bench/lib/cleanup.ts';
import { machineFacts } from '../bench/lib/machine.ts';
import { startNats, startPostgres, startRedis } from './infra.ts';
import { chaosMarkdown, verdicts, writeChaosSection } from './report.ts';
import { DEFAULT_SETTINGS, FAULTS, type ChaosSettings, type FaultName } from './settings.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');
const DOCS_FILE = path.join(REPO_ROOT, 'docs', 'reliability.md');
const CLEANUP_DEADLINE_MS = 90_000;

const { values: args } = parseArgs({
  options: {
    rate: { type: 'string' },
    orgs: { type: 'string' },
    campaigns: { type: 'string' },
    faults: { type: 'string' },
    baseline: { type: 'string' },
    settle: { type: 'string' },
    recovery: { type: 'string' },
    hold: { type: 'string' },
    keyed: { type: 'string' },
    drain: { type: 'string' },
    quick: { type: 'boolean', default: false },
    'no-slack': { type: 'boolean', default: false },
    built: { type: 'boolean', default: false },
    'no-write': { type: 'boolean', default: false },
    note: { type: 'string' },
    deadline: { type: 'string' },
  },
  strict: true,
});

function num(name: string, v: string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`--${name} takes a number ≥ 0, not ${v}`);
    process.exit(2);
  }
  return n;
}
const faults = (args.faults?.split(',').map((f) => f.trim()).filter(Boolean) ?? [...FAULTS]) as FaultName[];
const unknown = faults.filter((f) => !(FAULTS as readonly string[]).includes(f));
if (unknown.length) {
  console.error(`--faults: unknown ${unknown.join(', ')} (known: ${FAULTS.join(', ')})`);
  process.exit(2);
}
const settings: ChaosSettings = {
  ...DEFAULT_SETTINGS,
  rate: Math.max(1, num('rate', args.rate, DEFAULT_SETTINGS.rate)),
  orgs: Math.max(1, num('orgs', args.orgs, DEFAULT_SETTINGS.orgs)),
  campaignsPerOrg: Math.max(1, num('campaigns', args.campaigns, DEFAULT_SETTINGS.campaignsPerOrg)),
  baselineS: num('baseline', args.baseline, args.quick ? 3 : DEFAULT_SETTINGS.baselineS),
  settleS: num('settle', args.settle, DEFAULT_SETTINGS.settleS),
  recoveryS: num('recovery', args.recovery, args.quick ? 5 : DEFAULT_SETTINGS.recoveryS),
  holdS: num('hold', args.hold, DEFAULT_SETTINGS.holdS),
  drainS: num('drain', args.drain, DEFAULT_SETTINGS.drainS),
  faults,
  keyedShare: Math.min(1, num('keyed', args.keyed, DEFAULT_SETTINGS.keyedShare)),
  slack: !args['no-slack'],
  built: args.built,
};
const runDeadlineMs = num('deadline', args.deadline, 30) * 60_000;
const write = !args['no-write'] && !args.quick && faults.length === FAULTS.length;
const log = (msg: string) => process.stderr.write(`[chaos ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

const { add: addUndo, run: cleanup } = createCleanup('chaos', CLEANUP_DEADLINE_MS);

/** Last resort, run after every other step: any child process of this one still alive (a service started while the run was being torn down). */
function killRemainingChildren(): void {
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid) process.kill(Number(entry), 'SIGKILL');
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
}
addUndo(async () => killRemainingChildren());

let aborting = false;
async function abort(reason: string, code: number): Promise<never> {
  aborting = true;
  log(`${reason}; stopping everything the suite started`);
  await cleanup();
  process.exit(code);
}
process.once('SIGINT', () => void abort('interrupted', 130));
process.once('SIGTERM', () => void abort('terminated', 143));
const overrun = setTimeout(() => void abort(`the run overran its ${runDeadlineMs / 60_000} minute deadline`, 2), runDeadlineMs);
overrun.unref();

let exitCode = 0;
try {
  const machine = machineFacts();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'preflight-chaos-'));
  addUndo(async () => rmSync(dir, { recursive: true, force: true }));
  const postgres = await startPostgres();
  addUndo(() => postgres.stop());
  const redis = await startRedis(dir);
  addUndo(() => redis.stop());
  const nats = await startNats(dir);
  addUndo(() => nats.stop());
  log(`own servers: PostgreSQL ${postgres.version} ${postgres.url}, Redis ${redis.url}, NATS ${nats.url} (store ${dir})`);

  // Everything loaded from here on (@preflight/testing, the system) uses these servers, its cleanup too.
  process.env.TEST_DATABASE_URL = postgres.url;
  process.env.TEST_REDIS_URL = redis.url;
  process.env.TEST_NATS_URL = nats.url;
  const { runChaos } = await import('./suite.ts');
  const result = await runChaos(settings, { postgres, redis, nats }, addUndo, () => aborting);

  const command = ['npm run chaos', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' ');
  const markdown = chaosMarkdown(result, machine, os.loadavg(), command, postgres.version, args.note);
  process.stdout.write(`\n${markdown}\n\n`);
  if (write) {
    writeChaosSection(DOCS_FILE, markdown);
    log(`wrote the table into ${path.relative(REPO_ROOT, DOCS_FILE)}`);
  } else log('docs/reliability.md left as it was (--quick, --faults or --no-write)');
  log(`service warnings and errors: ${path.relative(REPO_ROOT, result.logFile)}`);
  const missed = verdicts(result).filter((v) => v.failed.length);
  if (missed.length) {
    log(`targets missed in ${missed.map((v) => `${v.phase} (${v.failed.map((c) => c.target).join('; ')})`).join(', ')}`);
    exitCode = 1;
  } else log('every target met');
} catch (err) {
  log(`failed: ${(err as Error).stack ?? String(err)}`);
  exitCode = 2;
} finally {
  clearTimeout(overrun);
  await cleanup();
}
process.exit(exitCode);
