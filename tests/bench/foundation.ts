import { fileURLToPath, pathToFileURL } from 'node:url';
import { ISSUE_SEVERITIES, ISSUE_TYPES } from '@preflight/contract';
import { parseSigningKey, signServiceToken } from '@preflight/service-auth';
import { call, freshTenant } from '../support/client.ts';
import { startSystem } from '../support/system.ts';
import { startBaseline } from './lib/baseline.ts';
import { httpThroughput, opThroughput, type HttpTarget, type ThroughputResult } from './lib/closed-loop.ts';
import { coresTakenFromRun, cpuMeter, settle, type CpuGroups, type CpuUsage } from './lib/cpu.ts';
import { machineFacts, type MachineFacts } from './lib/machine.ts';
import { httpOp, openLoop, type OpenLoopResult } from './lib/open-loop.ts';
import { startRawSqlBaseline } from './lib/raw-sql.ts';
import { fmtMs, fmtRate, fmtRatio, machineCaveat, machineLine, table, targetsSection } from './lib/report.ts';
import { postgresVersion } from './lib/postgres.ts';

/**
 * The foundation benchmark: the public issue list and create, through the gateway, beside the
 * same requests sent straight to the issue service, a bare express handler and (for create)
 * the raw SQL they boil down to. See docs/benchmarks.md for the figures.
 */
export interface FoundationSettings {
  /** Closed loop (autocannon / worker loop). */
  connections: number;
  warmupS: number;
  durationS: number;
  /** Open loop. */
  rate: number;
  openWarmupS: number;
  openDurationS: number;
  /** Issues seeded into the listed campaign, and the page size listed. */
  seedIssues: number;
  pageSize: number;
  /** The gateway's per-key limit per window, raised so the load is never throttled. */
  rateLimitMax: number;
  logLevel: string;
  /** pg pool size of the raw-SQL baseline; the services' DB_POOL_MAX default is 10. */
  sqlPoolMax: number;
  only?: 'list' | 'create' | undefined;
  /** When set, the services run under the CPU profiler, writing here (profiles land when they stop). */
  cpuProfDir?: string | undefined;
  /** Extra environment for the services (e.g. DB_POOL_MAX), applied last and listed in the report. */
  serviceEnv?: Record<string, string>;
}

export const DEFAULT_SETTINGS: FoundationSettings = {
  connections: 50,
  warmupS: 2,
  durationS: 10,
  rate: 200,
  openWarmupS: 1,
  openDurationS: 30,
  seedIssues: 500,
  pageSize: 50,
  rateLimitMax: 1_000_000,
  logLevel: 'warn',
  sqlPoolMax: 10,
};

type PathKind = 'gateway' | 'direct' | 'express' | 'raw-sql';
const PATH_LABEL: Record<PathKind, string> = {
  gateway: 'gateway (API key)',
  direct: 'issue service direct (caller headers)',
  express: 'bare express 5 handler',
  'raw-sql': 'raw SQL, pg pool, 1 tx per create',
};

export interface PathFigures {
  kind: PathKind;
  throughput: ThroughputResult;
  openLoop: OpenLoopResult;
  /** CPU used by each process during the measured windows (Linux). */
  cpu: { closed: CpuUsage | undefined; open: CpuUsage | undefined };
  /** Seconds waited before each phase for the system to go idle, and whether it did. */
  settled: { closedS: number; openS: number; ok: boolean };
}

export interface ScenarioFigures {
  name: 'list' | 'create';
  request: string;
  paths: PathFigures[];
}

export interface TargetCheck {
  target: string;
  measured: string;
  baseline: string;
  ratio: string;
  threshold: string;
  pass: boolean;
  /** Cores other processes used during the windows this check rests on (the worst of them). */
  othersCores: number;
}

/** Cores the hypervisor took from this machine during a window; NaN when unmeasured. */
const stolenCoresIn = (u: CpuUsage | undefined): number => (u ? (u.seconds.stolen ?? 0) / u.wallS : NaN);
const worst = (...v: number[]) => v.reduce((a, b) => (Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.max(a, b)), NaN);

export interface FoundationReport {
  settings: FoundationSettings;
  machine: MachineFacts;
  postgres: string;
  loadAtEnd: [number, number, number];
  scenarios: ScenarioFigures[];
  checks: TargetCheck[];
  complete: boolean;
}

export type Cleanup = (fn: () => Promise<unknown>) => void;

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

/** Runs `n` async jobs with at most `width` in flight. */
async function inBatches(n: number, width: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await job(next++);
    }),
  );
}

async function probe(target: HttpTarget): Promise<string> {
  const res = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body ?? null });
  const text = await res.text();
  if (res.status !== target.expectStatus) {
    throw new Error(`${target.method} ${target.url} answered ${res.status}, expected ${target.expectStatus}: ${text.slice(0, 500)}`);
  }
  return text;
}

/** Before a phase: let the previous one's aftermath (event consumers, relay, autovacuum) finish. */
async function quiesce(groups: CpuGroups): Promise<{ waitedS: number; settled: boolean }> {
  const r = await settle(groups, { maxS: 90 });
  if (r.waitedS > 3) log(`    waited ${r.waitedS.toFixed(0)} s for the system to go idle${r.settled ? '' : ' (it did not; measuring anyway)'}`);
  return r;
}

async function measureHttp(kind: PathKind, target: HttpTarget, s: FoundationSettings, groups: CpuGroups): Promise<PathFigures> {
  await probe(target);
  const before = await quiesce(groups);
  log(`  ${PATH_LABEL[kind]}: throughput, ${s.connections} connections, ${s.warmupS} s warm-up + ${s.durationS} s`);
  const closedCpu = cpuMeter(groups);
  const throughput = await httpThroughput(target, { connections: s.connections, warmupS: s.warmupS, durationS: s.durationS, window: closedCpu });
  log(`    ${fmtRate(throughput.rps)}${throughput.problems.length ? `  PROBLEMS: ${throughput.problems.join(', ')}` : ''}`);
  const between = await quiesce(groups);
  log(`  ${PATH_LABEL[kind]}: open loop at ${s.rate}/s, ${s.openWarmupS} s warm-up + ${s.openDurationS} s`);
  const client = httpOp(target);
  const openCpu = cpuMeter(groups);
  await openCpu.prepare();
  let open: OpenLoopResult;
  try {
    open = await openLoop(client.op, { rate: s.rate, warmupS: s.openWarmupS, durationS: s.openDurationS, window: openCpu });
  } finally {
    await client.close();
  }
  log(`    p50 ${fmtMs(open.latency.p50)}, p99 ${fmtMs(open.latency.p99)}${open.problems.length ? `  PROBLEMS: ${open.problems.join(', ')}` : ''}`);
  return {
    kind,
    throughput,
    openLoop: open,
    cpu: { closed: closedCpu.usage, open: openCpu.usage },
    settled: { closedS: before.waitedS, openS: between.waitedS, ok: before.settled && between.settled },
  };
}

export async function runFoundation(s: FoundationSettings, onCleanup: Cleanup): Promise<FoundationReport> {
  const machine = machineFacts();
  const postgres = await postgresVersion();

  log(`starting gateway, campaign and issue (${Object.entries({ LOG_LEVEL: s.logLevel, RATE_LIMIT_MAX: s.rateLimitMax, ...s.serviceEnv }).map(([k, v]) => `${k}=${v}`).join(', ')})`);
  const overrides: Record<string, string> = { LOG_LEVEL: s.logLevel, RATE_LIMIT_MAX: String(s.rateLimitMax), ...s.serviceEnv };
  if (s.cpuProfDir) {
    // Node 20 refuses --cpu-prof in NODE_OPTIONS; a preloaded inspector profiler does the same.
    const preload = fileURLToPath(new URL('./lib/cpu-profile-preload.mjs', import.meta.url));
    overrides.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import=${pathToFileURL(preload).href}`.trim();
    overrides.BENCH_CPU_PROF_DIR = s.cpuProfDir;
  }
  const sys = await startSystem(overrides);
  onCleanup(() => sys.stop());

  // One organisation, a key per scenario (each key has its own rate-limit log), and a campaign
  // per scenario so the creates never change the list's campaign.
  const tenant = await freshTenant(sys, { list: ['read', 'write'], create: ['read', 'write'] });
  const listKey = tenant.keys.list!;
  const createKey = tenant.keys.create!;
  const listCampaign = tenant.campaign as { id: string };
  const createCampaign = (await tenant.admin.createCampaign(tenant.site.id, 'Bench create')) as { id: string };
  const orgId = (tenant.org as { id: string }).id;

  log(`seeding ${s.seedIssues} issues through the gateway`);
  await inBatches(s.seedIssues, 8, async (i) => {
    const res = await call(sys, 'POST', `/api/v1/campaigns/${listCampaign.id}/issues`, {
      apiKey: listKey.key,
      body: {
        title: `Seeded issue ${i + 1}: checkout button misaligned on narrow screens`,
        description: `Seeded by the foundation benchmark (${i + 1} of ${s.seedIssues}).`,
        severity: ISSUE_SEVERITIES[i % ISSUE_SEVERITIES.length],
        type: ISSUE_TYPES[i % ISSUE_TYPES.length],
        pageUrl: `https://shop.example.com/products/${i + 1}`,
      },
    });
    if (res.status !== 201) throw new Error(`seeding issue ${i + 1} answered ${res.status}: ${res.text.slice(0, 500)}`);
  });

  const createBody = JSON.stringify({
    title: 'Checkout button does nothing on Safari 17',
    description: 'Clicking "Place order" on the payment step shows no feedback and no order is created.',
    severity: 'High',
    type: 'Bug',
    pageUrl: 'https://shop.example.com/checkout/payment',
  });
  const json = { accept: 'application/json' };
  const postJson = { ...json, 'content-type': 'application/json' };
  const listPath = `/api/v1/campaigns/${listCampaign.id}/issues?page=1&pageSize=${s.pageSize}`;
  const createPath = `/api/v1/campaigns/${createCampaign.id}/issues`;
  // What the gateway adds: its signed token for the key (the longest-lived one accepted, 300 s), signed as each path's
  // measurement starts: one path's phases with their waits for a quiet machine fit in it, a whole scenario may not.
  const gatewayKey = parseSigningKey('gateway', sys.serviceAuth.keys.gateway!);
  const caller = async (key: { id: string; name: string }) => ({
    authorization: `Bearer ${await signServiceToken(gatewayKey, { from: 'gateway', to: 'issue', caller: { kind: 'api-key', orgId, keyId: key.id, keyName: key.name }, ttlSeconds: 300 })}`,
  });

  // The list body the baseline answers is the one the service really answers.
  const listRes = await fetch(`${sys.gatewayUrl}${listPath}`, { headers: { ...json, 'x-api-key': listKey.key } });
  const listBody = await listRes.text();
  const page = JSON.parse(listBody) as { items: unknown[]; total: number };
  if (listRes.status !== 200 || page.items.length !== s.pageSize || page.total !== s.seedIssues) {
    throw new Error(`list answered ${listRes.status} with ${page.items?.length} items of ${page.total}; expected ${s.pageSize} of ${s.seedIssues}`);
  }
  const directList = await probe({ url: `${sys.serviceUrls.issue}${listPath}`, method: 'GET', headers: { ...json, ...(await caller(listKey)) }, expectStatus: 200 });
  if (directList !== listBody) throw new Error('the issue service answered the list differently from the gateway');

  const created = await fetch(`${sys.gatewayUrl}${createPath}`, { method: 'POST', headers: { ...postJson, 'x-api-key': createKey.key }, body: createBody });
  const createdText = await created.text();
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${createdText.slice(0, 500)}`);
  const createdIssue = JSON.parse(createdText) as { id: string; seqNumber: number };

  log('starting the bare express baseline');
  const baseline = await startBaseline({
    listBody,
    listContentType: listRes.headers.get('content-type') ?? 'application/json; charset=utf-8',
    createBody: JSON.stringify({ id: createdIssue.id, seqNumber: createdIssue.seqNumber }),
    createLocation: created.headers.get('location') ?? `/api/v1/issues/${createdIssue.id}`,
    contentType: created.headers.get('content-type') ?? 'application/json; charset=utf-8',
  });
  onCleanup(() => baseline.stop());
  // One group per service startSystem runs (the event consumers among them work on every create).
  const groups: CpuGroups = {
    'load generator': [process.pid],
    ...Object.fromEntries(Object.entries(sys.processes).map(([name, p]) => [name, [p.child.pid ?? -1]])),
    express: [baseline.child.pid ?? -1],
  };

  const scenarios: ScenarioFigures[] = [];

  if (s.only !== 'create') {
    log(`GET ${s.pageSize} of ${s.seedIssues} issues`);
    const targets: Array<[PathKind, () => Promise<HttpTarget>]> = [
      ['gateway', async () => ({ url: `${sys.gatewayUrl}${listPath}`, method: 'GET', headers: { ...json, 'x-api-key': listKey.key }, expectStatus: 200 })],
      ['direct', async () => ({ url: `${sys.serviceUrls.issue}${listPath}`, method: 'GET', headers: { ...json, ...(await caller(listKey)) }, expectStatus: 200 })],
      ['express', async () => ({ url: `${baseline.url}${listPath}`, method: 'GET', headers: json, expectStatus: 200 })],
    ];
    const paths: PathFigures[] = [];
    for (const [kind, target] of targets) paths.push(await measureHttp(kind, await target(), s, groups));
    scenarios.push({ name: 'list', request: `GET /api/v1/campaigns/{id}/issues (page of ${s.pageSize} of ${s.seedIssues})`, paths });
  }

  if (s.only !== 'list') {
    log('POST an issue, all on one campaign');
    const targets: Array<[PathKind, () => Promise<HttpTarget>]> = [
      ['gateway', async () => ({ url: `${sys.gatewayUrl}${createPath}`, method: 'POST', headers: { ...postJson, 'x-api-key': createKey.key }, body: createBody, expectStatus: 201 })],
      ['direct', async () => ({ url: `${sys.serviceUrls.issue}${createPath}`, method: 'POST', headers: { ...postJson, ...(await caller(createKey)) }, body: createBody, expectStatus: 201 })],
      ['express', async () => ({ url: `${baseline.url}${createPath}`, method: 'POST', headers: postJson, body: createBody, expectStatus: 201 })],
    ];
    const paths: PathFigures[] = [];
    for (const [kind, target] of targets) paths.push(await measureHttp(kind, await target(), s, groups));

    log(`starting the raw-SQL baseline (scratch schema, pool max ${s.sqlPoolMax})`);
    const parsed = JSON.parse(createBody) as { title: string; description: string; severity: 'High'; type: 'Bug'; pageUrl: string };
    const raw = await startRawSqlBaseline({ ...parsed, reporter: `API key ${createKey.name}` }, s.sqlPoolMax);
    onCleanup(() => raw.close());
    const op = async () => {
      await raw.createIssue();
    };
    await raw.warm();
    await op();
    const before = await quiesce(groups);
    log(`  ${PATH_LABEL['raw-sql']}: throughput, ${s.connections} workers, ${s.warmupS} s warm-up + ${s.durationS} s`);
    const closedCpu = cpuMeter(groups);
    const throughput = await opThroughput(op, { workers: s.connections, warmupS: s.warmupS, durationS: s.durationS, window: closedCpu });
    log(`    ${fmtRate(throughput.rps)}${throughput.problems.length ? `  PROBLEMS: ${throughput.problems.join(', ')}` : ''}`);
    const between = await quiesce(groups);
    log(`  ${PATH_LABEL['raw-sql']}: open loop at ${s.rate}/s`);
    const openCpu = cpuMeter(groups);
    await openCpu.prepare();
    const open = await openLoop(op, { rate: s.rate, warmupS: s.openWarmupS, durationS: s.openDurationS, window: openCpu });
    log(`    p50 ${fmtMs(open.latency.p50)}, p99 ${fmtMs(open.latency.p99)}${open.problems.length ? `  PROBLEMS: ${open.problems.join(', ')}` : ''}`);
    paths.push({
      kind: 'raw-sql',
      throughput,
      openLoop: open,
      cpu: { closed: closedCpu.usage, open: openCpu.usage },
      settled: { closedS: before.waitedS, openS: between.waitedS, ok: before.settled && between.settled },
    });
    scenarios.push({ name: 'create', request: 'POST /api/v1/campaigns/{id}/issues (one campaign)', paths });
  }

  return {
    settings: s,
    machine,
    postgres,
    loadAtEnd: machineFacts().loadAverage,
    scenarios,
    checks: checksOf(scenarios, s),
    complete: s.only === undefined,
  };
}

function figures(scenarios: ScenarioFigures[], name: 'list' | 'create', kind: PathKind): PathFigures | undefined {
  return scenarios.find((x) => x.name === name)?.paths.find((p) => p.kind === kind);
}

/** The targets of the foundation issue, for a 2-core machine. */
function checksOf(scenarios: ScenarioFigures[], s: FoundationSettings): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const ratioCheck = (target: string, a: PathFigures | undefined, b: PathFigures | undefined, min: number) => {
    if (!a || !b) return;
    const r = a.throughput.rps / b.throughput.rps;
    checks.push({
      target,
      measured: `${fmtRate(a.throughput.rps)} (${a.kind})`,
      baseline: `${fmtRate(b.throughput.rps)} (${b.kind})`,
      ratio: fmtRatio(r),
      threshold: `≥ ${min}×`,
      pass: r >= min,
      othersCores: worst(coresTakenFromRun(a.cpu.closed), coresTakenFromRun(b.cpu.closed)),
    });
  };
  const p99Check = (target: string, a: PathFigures | undefined, direct: PathFigures | undefined, maxMs: number) => {
    if (!a) return;
    const v = a.openLoop.latency.p99;
    checks.push({
      target,
      measured: fmtMs(v),
      baseline: direct ? `${fmtMs(direct.openLoop.latency.p99)} (direct)` : '–',
      ratio: direct ? fmtRatio(v / direct.openLoop.latency.p99) : '–',
      threshold: `≤ ${maxMs} ms`,
      pass: v <= maxMs && a.openLoop.failed === 0,
      othersCores: coresTakenFromRun(a.cpu.open),
    });
  };
  const gl = figures(scenarios, 'list', 'gateway');
  const gc = figures(scenarios, 'create', 'gateway');
  ratioCheck('List throughput: gateway ÷ direct', gl, figures(scenarios, 'list', 'direct'), 0.5);
  p99Check(`List p99 at ${s.rate}/s through the gateway`, gl, figures(scenarios, 'list', 'direct'), 20);
  ratioCheck('Create throughput: gateway ÷ direct', gc, figures(scenarios, 'create', 'direct'), 0.5);
  if (gc) {
    checks.push({
      target: 'Create throughput through the gateway',
      measured: fmtRate(gc.throughput.rps),
      baseline: '–',
      ratio: '–',
      threshold: '≥ 600/s',
      pass: gc.throughput.rps >= 600,
      othersCores: coresTakenFromRun(gc.cpu.closed),
    });
  }
  ratioCheck('Create throughput: gateway ÷ raw SQL', gc, figures(scenarios, 'create', 'raw-sql'), 0.7);
  p99Check(`Create p99 at ${s.rate}/s through the gateway`, gc, figures(scenarios, 'create', 'direct'), 30);
  // A figure measured while requests failed is not a figure.
  for (const sc of scenarios) {
    for (const p of sc.paths) {
      if (p.throughput.problems.length || p.openLoop.problems.length) {
        for (const c of checks) if (c.target.toLowerCase().startsWith(sc.name)) c.pass = false;
      }
    }
  }
  return checks;
}

export function foundationMarkdown(r: FoundationReport, command: string, note?: string): string {
  const s = r.settings;
  const m = r.machine;
  const out: string[] = [];
  out.push('## Foundation: issue list and create through the gateway');
  out.push('');
  out.push(`Command: \`${command}\` — run ${m.date}.`);
  out.push('');
  out.push(`Machine: ${machineLine(m, [r.postgres])}. Load average (1/5/15 min) at start ${m.loadAverage.join(' / ')}, at end ${r.loadAtEnd.join(' / ')}.`);
  // How busy the rest of the machine was while we measured: the honest caveat on every figure.
  out.push(...machineCaveat(m, r.scenarios.flatMap((sc) => sc.paths.flatMap((p) => [p.cpu.closed, p.cpu.open])), note));
  out.push('');
  out.push('Settings:');
  const extraEnv = Object.entries(s.serviceEnv ?? {}).map(([k, v]) => `\`${k}=${v}\``);
  out.push(
    `- Services: \`LOG_LEVEL=${s.logLevel}\`, \`RATE_LIMIT_MAX=${s.rateLimitMax}\` per key per 60 s window (raised from the default 600 so the load is never throttled; the limiter still runs on every request)${extraEnv.length ? `, ${extraEnv.join(', ')}` : ''}; every other setting at its default (\`DB_POOL_MAX\` ${s.serviceEnv?.DB_POOL_MAX ?? 10}); all processes, Postgres and Redis on 127.0.0.1 of this machine.`,
  );
  out.push(`- Throughput: closed loop, ${s.connections} connections (autocannon, HTTP/1.1 keep-alive, no pipelining), ${s.warmupS} s warm-up then ${s.durationS} s measured; only answers with the expected status count. The raw-SQL baseline runs ${s.connections} concurrent workers over a pg pool of ${s.sqlPoolMax}.`);
  out.push('- Between phases the harness waits (up to 90 s) until the processes of the run use less than 0.15 cores, so that the event consumers, the outbox relay and Postgres have finished with the previous phase before the next is measured.');
  out.push(`- Latency: open loop at a fixed ${s.rate} requests/s (undici), ${s.openWarmupS} s warm-up then ${s.openDurationS} s; each request is timed from its scheduled send time to the last byte, so stalls are not hidden (no coordinated omission).`);
  out.push(`- List: \`GET /api/v1/campaigns/{id}/issues?page=1&pageSize=${s.pageSize}\` on a campaign seeded with ${s.seedIssues} issues. Create: \`POST /api/v1/campaigns/{id}/issues\` (title, description, severity, type, pageUrl), every request on the same campaign, so creates queue on its sequence row.`);
  out.push('- Paths: **gateway** = API key through the gateway to the issue service; **direct** = the same request to the issue service with the signed service token the gateway adds; **express** = a bare express 5 handler in its own process answering the same list bytes / a fixed `{id, seqNumber}` 201; **raw SQL** = the writes the issue service\'s `createIssues()` makes for one issue (sequence upsert, issue row, history row, outbox row + `pg_notify`) in one transaction per create over `pg` (the service gathers a campaign\'s concurrent creates into shared transactions; the baseline does not), in a scratch schema built by the issue migrations.');
  out.push('');
  out.push(...targetsSection(r.checks, 'Ratio', (c) => c.ratio));
  out.push('');
  out.push(`### Throughput at ${s.connections} connections`);
  out.push('');
  const rows: string[][] = [];
  for (const sc of r.scenarios) {
    const gw = sc.paths.find((p) => p.kind === 'gateway');
    for (const p of sc.paths) {
      rows.push([
        sc.name,
        PATH_LABEL[p.kind],
        fmtRate(p.throughput.rps),
        gw && p.kind !== 'gateway' ? fmtRatio(gw.throughput.rps / p.throughput.rps) : '–',
        fmtMs(p.throughput.latency.p50),
        fmtMs(p.throughput.latency.p99),
        p.throughput.problems.length ? p.throughput.problems.join('; ') : 'none',
      ]);
    }
  }
  out.push(table(['Request', 'Path', 'Throughput', 'Gateway ÷ this', 'p50 (closed loop)', 'p99 (closed loop)', 'Errors'], rows));
  out.push('');
  const waits = r.scenarios.flatMap((sc) =>
    sc.paths
      .filter((p) => p.settled.closedS > 3 || p.settled.openS > 3 || !p.settled.ok)
      .map((p) => `${sc.name} ${p.kind}: ${p.settled.closedS.toFixed(0)} s before the closed loop, ${p.settled.openS.toFixed(0)} s before the open loop${p.settled.ok ? '' : ' (did not go idle)'}`),
  );
  if (waits.length) {
    out.push(`Waits for the system to go idle before a phase: ${waits.join('; ')}.`);
    out.push('');
  }
  out.push(`### Latency at ${s.rate} requests/s (open loop)`);
  out.push('');
  const lrows: string[][] = [];
  for (const sc of r.scenarios) {
    for (const p of sc.paths) {
      const o = p.openLoop;
      lrows.push([
        sc.name,
        PATH_LABEL[p.kind],
        fmtRate(o.achievedRate),
        fmtMs(o.latency.p50),
        fmtMs(o.latency.p90),
        fmtMs(o.latency.p99),
        fmtMs(o.latency.max),
        o.problems.length ? o.problems.join('; ') : 'none',
        fmtMs(o.sendLag.p99),
        Number.isFinite(stolenCoresIn(p.cpu.open)) ? stolenCoresIn(p.cpu.open).toFixed(2) : '–',
      ]);
    }
  }
  out.push(table(['Request', 'Path', 'Answered', 'p50', 'p90', 'p99', 'max', 'Errors', 'Generator send lag p99', 'Cores stolen'], lrows));
  out.push('');
  out.push('"Generator send lag" is how late the load generator itself sent; if it is more than a millisecond or two, the harness, not the target, was short of CPU.');
  out.push('');
  out.push('### CPU per request');
  out.push('');
  const services = [...new Set(r.scenarios.flatMap((sc) => sc.paths.flatMap((p) => Object.keys(p.cpu.closed?.seconds ?? {}))))].filter(
    (g) => !['load generator', 'gateway', 'issue', 'postgres', 'redis', 'nats', 'express', 'other', 'stolen'].includes(g),
  );
  const groupCols = ['load generator', 'gateway', 'issue', ...services.sort(), 'postgres', 'redis', 'nats', 'express', 'other', 'stolen'];
  const crows: string[][] = [];
  for (const sc of r.scenarios) {
    for (const p of sc.paths) {
      for (const [loop, usage, ok] of [
        ['closed', p.cpu.closed, p.throughput.ok],
        ['open', p.cpu.open, p.openLoop.ok],
      ] as const) {
        if (!usage) continue;
        crows.push([
          sc.name,
          PATH_LABEL[p.kind],
          loop === 'closed' ? `${s.connections} conns` : `${s.rate}/s`,
          `${usage.coresBusy.toFixed(2)} of ${m.nproc}`,
          ...groupCols.map((g) => {
            const sec = usage.seconds[g] ?? 0;
            return sec > 0 ? `${((sec * 1000) / Math.max(1, ok)).toFixed(3)}` : '–';
          }),
        ]);
      }
    }
  }
  out.push(table(['Request', 'Path', 'Load', 'Cores busy', ...groupCols.map((g) => `${g} ms`)], crows));
  out.push('');
  out.push('CPU milliseconds (user + system, from /proc) each process spent per successful request in the measured window. "load generator" is this harness (autocannon, the open-loop client, or the raw-SQL workers); "postgres" is the backends serving the benchmark\'s own connections plus Postgres\'s background processes; "redis" is the whole Redis server; "nats" the NATS server (the events each create publishes go through it); the other services of the run (campaign, webhook…) consume the events each create publishes; "other" is the rest of the machine\'s busy time (other people\'s processes and their Postgres backends); "stolen" is the time the hypervisor ran something else while this machine\'s CPUs wanted to run (steal in /proc/stat), during which every process here stood still. /proc counts in 10 ms ticks, so small figures are approximate.');
  out.push('');
  return out.join('\n');
}
