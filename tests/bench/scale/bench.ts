import type { RunningSystem } from '../../support/system.ts';
import type { ThroughputResult } from '../lib/closed-loop.ts';
import { machineFacts } from '../lib/machine.ts';
import type { OpenLoopResult } from '../lib/open-loop.ts';
import { withBenchClient } from '../lib/postgres.ts';
import { rssSampler } from '../lib/rss.ts';
import { quiesce, systemBenchDefaults, startBenchSystem, type Cleanup, type SystemBenchSettings, type SystemReport } from '../lib/system-bench.ts';
import { setUpFanout, startReceivers, type FanoutLatency, type FanoutSustained, type SweepEffect } from './fanout.ts';
import { loadLog, loadTenants, schemaSizes, type LoadTiming } from './load/index.ts';
import { BIG_CAMPAIGN, EMPTY_CAMPAIGN, KIND, OPEN_CAMPAIGN, WEBHOOK_ORG, idOf, scalePlan, smallCampaign, smallOpenCampaign, smallOrg, type ScalePlan } from './load/plan.ts';
import { createLatency, createThroughput, readinessCost, readWindow, type ReadinessCost, type WindowSettings } from './measure.ts';
import { scaleChecks } from './checks.ts';
import { verifyLoad } from './load/verify.ts';
import { explainAll, listIssuesSql, otherReadsSql, v7Floor, type PlanSummary } from './explain.ts';

/**
 * The scale benchmark (issue 25): a year of a large customer loaded straight into the
 * services' schemas (load/), then every measured operation on the large data set beside the
 * same operation on a small one in the same run — through the gateway with an API key (the
 * operator's token for admin reads), as a client calls it.
 */
export interface ScaleSettings extends Omit<SystemBenchSettings, 'compareDurationS' | 'rate'> {
  /** Fraction of the full data set (1,000,000 issues, 10,000,000 attempts …); 50 endpoints whatever it is. */
  scale: number;
  /** The list's page 1, open loop, requests/s (the issue's "list p99 at 200/s"). */
  listRate: number;
  /** Every other read, requests/s. */
  readRate: number;
  createRate: number;
  createConnections: number;
  /** Issues filed per second while the readiness consumer's cost is read. */
  fileRate: number;
  /** Events/s published for the fan-out p99 (deliveries/s = × 50). */
  fanoutRate: number;
  sweepWindowS: number;
  /** Leave the loaded schemas behind (renamed `<schema>_kept`) for EXPLAIN work, instead of dropping them. */
  keepSchemas?: boolean;
}

export const DEFAULT_SCALE_SETTINGS: ScaleSettings = {
  ...systemBenchDefaults(),
  scale: 1,
  listRate: 200,
  readRate: 20,
  createRate: 100,
  createConnections: 16,
  fileRate: 20,
  fanoutRate: 20,
  warmupS: 2,
  durationS: 10,
  tpWarmupS: 2,
  tpDurationS: 10,
  feedWindow: 2_000,
  sweepWindowS: 20,
  drainTimeoutS: 30,
};

export const QUICK_SCALE_SETTINGS: Partial<ScaleSettings> = { warmupS: 0.5, durationS: 3, tpWarmupS: 0.5, tpDurationS: 3, sweepWindowS: 8, drainTimeoutS: 20 };

/** The same read on the two data sets. */
export interface ReadPair {
  label: string;
  rate: number;
  big: OpenLoopResult;
  small: OpenLoopResult;
  /** The deep pages: the page numbers read. */
  pages?: { big: number; small: number };
}

export interface ScaleReport extends SystemReport<ScaleSettings> {
  plan: ScalePlan;
  load: LoadTiming[];
  /** MB on disk by service, once everything was loaded. */
  sizes: Record<string, number>;
  reads: ReadPair[];
  create: { big: { latency: OpenLoopResult; throughput: ThroughputResult }; empty: { latency: OpenLoopResult; throughput: ThroughputResult } };
  readiness: { big: ReadinessCost; small: ReadinessCost };
  fanout: { before: { latency: FanoutLatency; sustained: FanoutSustained }; after: { latency: FanoutLatency; sustained: FanoutSustained }; sweep: SweepEffect };
  /** The plans of the measured reads' statements on the loaded data. */
  plans: PlanSummary[];
  /** Largest RSS (MB) of each service's processes, by phase, and the machine's 1-minute load average at its end. */
  rss: Array<{ phase: string; mb: Record<string, number>; load1: number }>;
}

const log = (msg: string) => process.stderr.write(`[bench:scale] ${msg}\n`);

/** Renames every schema of the system to `<schema>_kept` (under the DDL lock migrations and drops take) and says how to remove them. */
async function keepSchemas(schemas: Record<string, string>): Promise<void> {
  const kept = Object.entries(schemas).map(([service, schema]) => ({ service, from: schema, to: `${schema}_kept` }));
  await withBenchClient(async (client) => {
    await client.query(`select pg_advisory_lock(hashtext('preflight:schema-ddl'))`);
    for (const k of kept) await client.query(`alter schema "${k.from}" rename to "${k.to}"`);
  });
  log(`kept the loaded schemas (SCALE_BENCH_KEEP): ${kept.map((k) => `${k.service} ${k.to}`).join(', ')}`);
  log(`remove them when done: psql -h 127.0.0.1 -U postgres postgres -c 'drop schema ${kept.map((k) => `"${k.to}"`).join(', ')} cascade'`);
}

/** Every service's Postgres pool: the server's 100 connections are shared with whatever else runs on the machine. */
const POOL = '4';

export async function runScale(s: ScaleSettings, onCleanup: Cleanup): Promise<ScaleReport> {
  const machine = machineFacts();
  const p = scalePlan(s.scale);
  const receivers = await startReceivers(p.webhooks + 1, onCleanup);
  // Retention off until the sweep phase turns it on: a sweep must not run in another phase.
  const env = { LOG_LEVEL: s.logLevel, RATE_LIMIT_MAX: '1000000', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', DB_POOL_MAX: POOL, DELIVERY_LOG_RETENTION_DAYS: '0', ...s.serviceEnv };
  const sys: RunningSystem = await startBenchSystem({ env, cpuProfDir: s.cpuProfDir, replicas: {}, standIn: receivers, onCleanup, log });
  // Undone before the system stops (cleanup runs last-in first): the renamed schemas escape its drop.
  if (s.keepSchemas) onCleanup(() => keepSchemas(sys.schemas));
  /** Every service's processes, as they are now (the sweep phase restarts the delivery service). */
  const pids = () => Object.fromEntries(Object.entries(sys.replicas).map(([name, procs]) => [name, procs.map((x) => x.child.pid ?? 0)]));
  // Before each window: the consumers have worked off what the previous one produced.
  const settle = () => quiesce(pids(), log);
  const rss = rssSampler(() => pids());
  onCleanup(async () => rss.stop());
  const rssByPhase: ScaleReport['rss'] = [];
  const phaseDone = (phase: string) => rssByPhase.push({ phase, mb: rss.take(), load1: machineFacts().loadAverage[0] });
  const w: WindowSettings = { warmupS: s.warmupS, durationS: s.durationS, drainTimeoutS: s.drainTimeoutS };

  // The data set: organisations, campaigns, issues and projections first (the fan-out baseline runs before the log exists).
  const nowMs = Date.now();
  log(`loading scale ${s.scale}: ${p.orgs.toLocaleString('en-US')} organisations, ${p.campaigns.toLocaleString('en-US')} campaigns, ${p.issues.toLocaleString('en-US')} issues (${p.bigCampaignIssues.toLocaleString('en-US')} in one), ${p.attempts.toLocaleString('en-US')} attempts`);
  const load = await loadTenants(sys.schemas, p, nowMs, log);
  phaseDone('load: organisations, campaigns, issues');
  const org = (n: number) => idOf(KIND.org, n);
  const campaign = (n: number) => idOf(KIND.campaign, n);
  const key = async (orgId: string) => {
    const res = await fetch(`${sys.gatewayUrl}/admin/v1/organizations/${orgId}/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sys.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'scale bench', scopes: ['read', 'write'] }),
    });
    if (res.status !== 201) throw new Error(`creating a key for ${orgId} → ${res.status} ${await res.text()}`);
    return ((await res.json()) as { key: string }).key;
  };
  const bigKey = { 'x-api-key': await key(org(0)) };
  const smallKey = { 'x-api-key': await key(org(smallOrg(p))) };
  await verifyLoad(sys, p, bigKey['x-api-key'], log);
  const adminAuth = { authorization: `Bearer ${sys.adminToken}` };
  const fanout = await setUpFanout(sys, receivers, { busyOrg: org(WEBHOOK_ORG), busy: p.webhooks, quietOrg: org(smallOrg(p)) }, onCleanup, log);

  const fanoutWindow = { rate: s.fanoutRate, warmupS: s.warmupS, durationS: s.durationS, drainTimeoutS: s.drainTimeoutS };
  const sustainedWindow = { warmupS: s.tpWarmupS, durationS: s.tpDurationS, feedWindow: s.feedWindow, drainTimeoutS: s.drainTimeoutS };
  const fanoutPhase = async (name: string) => {
    await settle();
    const latency = await fanout.latency(name, fanoutWindow);
    await settle();
    return { latency, sustained: await fanout.sustained(sustainedWindow) };
  };
  const before = await fanoutPhase('before');
  phaseDone('fan-out, empty log');

  load.push(...(await loadLog(sys.schemas.delivery, p, { busy: fanout.busy.map((h) => h.id), quiet: fanout.quiet.id, nowMs }, log)));
  phaseDone('load: delivery log');
  const loadS = load.reduce((t, l) => t + l.seconds, 0);
  const sizes = await schemaSizes(sys.schemas);
  log(`loaded in ${loadS.toFixed(0)} s; on disk: ${Object.entries(sizes).map(([k, v]) => `${k} ${v.toFixed(0)} MB`).join(', ')}`);

  // Reads: the large data set beside the small one, the same request shape.
  const reads: ReadPair[] = [];
  const pair = async (label: string, rate: number, big: [string, Record<string, string>], small: [string, Record<string, string>], pages?: ReadPair['pages']) => {
    log(`${label}: ${rate}/s, ${s.warmupS} s warm-up + ${s.durationS} s, large then small`);
    await settle();
    const bigRun = await readWindow(sys, big[0], big[1], rate, w);
    await settle();
    const r: ReadPair = { label, rate, big: bigRun, small: await readWindow(sys, small[0], small[1], rate, w), ...(pages ? { pages } : {}) };
    log(`  p99 ${r.big.latency.p99.toFixed(2)} ms (large) vs ${r.small.latency.p99.toFixed(2)} ms (small)${r.big.failed + r.small.failed ? `; FAILED ${r.big.failed}+${r.small.failed}: ${[...r.big.problems, ...r.small.problems].join(', ')}` : ''}`);
    reads.push(r);
  };
  const list = (c: number, page: number, filter = '') => `/api/v1/campaigns/${campaign(c)}/issues?page=${page}&pageSize=50${filter}`;
  const FILTER = '&status=InProgress&severity=High';
  const lastPage = (n: number) => Math.max(1, Math.ceil(n / 50));
  const filteredCount = (c: number) =>
    withBenchClient(async (client) => Number((await client.query<{ n: string }>(`select count(*) as n from "${sys.schemas.issue}".issues where campaign_id = $1 and status = 'InProgress' and severity = 'High'`, [campaign(c)])).rows[0]!.n));
  const deep = { big: lastPage(p.bigCampaignIssues), small: lastPage(p.small.issues) };
  const deepFiltered = { big: lastPage(await filteredCount(BIG_CAMPAIGN)), small: lastPage(await filteredCount(smallCampaign(p))) };
  const midIssue = idOf(KIND.issue, Math.floor(p.bigCampaignIssues / 2));
  const smallIssue = idOf(KIND.issue, p.issues + Math.floor(p.small.issues / 2));
  const filter = { status: 'InProgress', severity: 'High' } as const;
  const plans = await explainAll([
    listIssuesSql(sys.schemas.issue, campaign(BIG_CAMPAIGN), 1),
    listIssuesSql(sys.schemas.issue, campaign(BIG_CAMPAIGN), deep.big),
    listIssuesSql(sys.schemas.issue, campaign(BIG_CAMPAIGN), 1, filter),
    listIssuesSql(sys.schemas.issue, campaign(BIG_CAMPAIGN), deepFiltered.big, filter),
    ...otherReadsSql(sys.schemas, { issueId: midIssue, orgId: org(0), endpointId: fanout.busy[0]!.id, cutoff: v7Floor(Date.now() - (p.logDays - 1) * 86_400_000) }),
  ]);
  for (const plan of plans) log(`plan of ${plan.label}: ${plan.executionMs.toFixed(1)} ms, ${plan.shape}${plan.seqScans.length ? `; SEQ SCAN ${plan.seqScans.join(', ')}` : ''}`);
  await pair('list issues, page 1', s.listRate, [list(BIG_CAMPAIGN, 1), bigKey], [list(smallCampaign(p), 1), smallKey]);
  // Page 1 again at the rate of the other reads: the deep page's baseline.
  await pair('list issues, page 1, at the other reads\' rate', s.readRate, [list(BIG_CAMPAIGN, 1), bigKey], [list(smallCampaign(p), 1), smallKey]);
  await pair('list issues, deep page', s.readRate, [list(BIG_CAMPAIGN, deep.big), bigKey], [list(smallCampaign(p), deep.small), smallKey], deep);
  await pair('list issues, page 1, filtered (status, severity)', s.readRate, [list(BIG_CAMPAIGN, 1, FILTER), bigKey], [list(smallCampaign(p), 1, FILTER), smallKey]);
  await pair('list issues, deep page, filtered', s.readRate, [list(BIG_CAMPAIGN, deepFiltered.big, FILTER), bigKey], [list(smallCampaign(p), deepFiltered.small, FILTER), smallKey], deepFiltered);
  await pair('get one issue with its history', s.readRate, [`/api/v1/issues/${midIssue}`, bigKey], [`/api/v1/issues/${smallIssue}`, smallKey]);
  await pair(`list campaigns (admin), ${p.bigOrgCampaigns.toLocaleString('en-US')} vs 2`, s.readRate, [`/admin/v1/organizations/${org(0)}/campaigns`, adminAuth], [`/admin/v1/organizations/${org(smallOrg(p))}/campaigns`, adminAuth]);
  await pair('delivery log of an endpoint (admin, 50 newest)', s.readRate, [`/admin/v1/webhooks/${fanout.busy[0]!.id}/deliveries?limit=50`, adminAuth], [`/admin/v1/webhooks/${fanout.quiet.id}/deliveries?limit=50`, adminAuth]);
  phaseDone('reads');

  // Creates: the big campaign against the empty one (the same organisation and key).
  const bigKeyValue = bigKey['x-api-key'];
  log(`create: ${s.createRate}/s open loop, then ${s.createConnections} connections closed loop; the big campaign, then the empty one`);
  const creates = async (c: number) => {
    await settle();
    const latency = await createLatency(sys, campaign(c), bigKeyValue, s.createRate, w);
    await settle();
    return { latency, throughput: await createThroughput(sys, campaign(c), bigKeyValue, s.createConnections, w) };
  };
  const create = { big: await creates(BIG_CAMPAIGN), empty: await creates(EMPTY_CAMPAIGN) };
  log(`  big: p99 ${create.big.latency.latency.p99.toFixed(2)} ms, ${Math.round(create.big.throughput.rps)}/s; empty: p99 ${create.empty.latency.latency.p99.toFixed(2)} ms, ${Math.round(create.empty.throughput.rps)}/s`);
  phaseDone('creates');

  log(`readiness: ${s.fileRate} issues/s for ${s.durationS} s into the campaign with ${p.openCampaignIssues.toLocaleString('en-US')} open issues, then into the one with ${p.small.openIssues}`);
  const fileWindow = { rate: s.fileRate, durationS: s.durationS, drainTimeoutS: s.drainTimeoutS };
  const readiness = {
    big: await readinessCost(sys, campaign(OPEN_CAMPAIGN), bigKeyValue, fileWindow, log),
    small: await readinessCost(sys, campaign(smallOpenCampaign(p)), smallKey['x-api-key'], fileWindow, log),
  };
  log(`  ${readiness.big.perEventMs.toFixed(2)} ms per event (large) vs ${readiness.small.perEventMs.toFixed(2)} ms (small)`);
  phaseDone('readiness');

  const after = await fanoutPhase('after');
  phaseDone('fan-out, loaded log');
  await settle();
  const sweep = await fanout.sweep({ rate: s.fanoutRate, retentionDays: p.logDays - 1, windowS: s.sweepWindowS, drainTimeoutS: s.drainTimeoutS });
  phaseDone('fan-out during a retention sweep');

  const report: ScaleReport = {
    settings: s,
    machine,
    loadAtEnd: machineFacts().loadAverage,
    serviceSettings: { DB_POOL_MAX: POOL, LOG_LEVEL: s.logLevel, ...s.serviceEnv },
    checks: [],
    plan: p,
    load,
    sizes,
    reads,
    create,
    readiness,
    fanout: { before, after, sweep },
    plans,
    rss: rssByPhase,
  };
  report.checks = scaleChecks(report);
  return report;
}
