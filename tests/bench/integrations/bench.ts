import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import { admin, call } from '../../support/client.ts';
import type { RunningSystem } from '../../support/system.ts';
import { cpuMeter, type CpuGroups, type CpuUsage } from '../lib/cpu.ts';
import { machineFacts } from '../lib/machine.ts';
import { REPORTED_PAUSE_MS, watchMachinePauses, type PauseCount } from '../lib/machine-pauses.ts';
import { openLoop, type OpenLoopResult } from '../lib/open-loop.ts';
import { pgActivitySampler, type PgActivity } from '../lib/pg-activity.ts';
import { vacuumSchemas, withBenchClient } from '../lib/postgres.ts';
import { Samples, summarise, type LatencySummary } from '../lib/stats.ts';
import { bareLoop, bucketOf, cutProfiles, feedWindow, metricSum, quiesce as settleGroups, ratio, sleep, StandInWorker, startBenchSystem, waitForCount } from '../lib/system-bench.ts';
import { QUICK_SYSTEM_BENCH, serviceSettingsOf, systemBenchDefaults, type Check, type Cleanup, type SystemBenchSettings, type SystemReport, type ThroughputWindow } from '../lib/system-bench.ts';

/**
 * The integration benchmark (issue 26): issues filed through the gateway's public API (an API
 * key per organisation, POST /api/v1/campaigns/:id/issues) for several organisations, each with
 * three connections (Slack, Teams, GitHub) on loopback provider stand-ins in a worker thread of
 * this process (providers-worker.mjs). Every service runs as its own process from the bundle
 * its image runs, the integration service as the chart deploys it (2 replicas). Latency is the
 * arrival at the provider − the moment the filing request was due (open loop), both on the
 * machine's monotonic clock (process.hrtime).
 */
export interface IntegrationsSettings extends SystemBenchSettings {
  /** Organisations the load is spread over; each has a Slack, a Teams and a GitHub connection. */
  orgs: number;
  /** Integration service processes (replicas sharing its schema and consumer). Default 2, the chart's `replicaCount`. */
  integrationReplicas: number;
  /** Open loop, issues/s (all organisations together). */
  rate: number;
  /** Measured seconds of the control run and of the run with a hanging Slack webhook (compared with each other). */
  compareDurationS: number;
  /** Unmeasured first run: processes just started run slower for several seconds. */
  warmRunS: number;
  /**
   * Sustained phase: provider calls outstanding (filed issues × calls per issue − arrivals) the
   * generator keeps the system fed with. Large enough that it is not the limit while the
   * pipeline takes seconds (throughput ≤ window ÷ latency); the warm-up lets it fill.
   */
  feedWindow: number;
  /** Sustained phase: filing requests in flight at most. */
  fileConcurrency: number;
  /** Bare loop: concurrent loops (default: every replica's INTEGRATION_WORKERS together). */
  bareConcurrency: number;
}

export const DEFAULT_INTEGRATIONS_SETTINGS: IntegrationsSettings = {
  ...systemBenchDefaults(),
  orgs: 10,
  integrationReplicas: 2,
  durationS: 20,
  compareDurationS: 45,
  warmRunS: 30,
  feedWindow: 4_000,
  fileConcurrency: 64,
  tpWarmupS: 10,
  tpDurationS: 20,
  bareConcurrency: 0,
};

export const QUICK_INTEGRATIONS_SETTINGS: Partial<IntegrationsSettings> = { ...QUICK_SYSTEM_BENCH, warmRunS: 2, tpWarmupS: 1 };

/** The provider calls one filed issue makes: Slack post, Teams post, GitHub create (a new issue is open already: no status read-back). */
export const CALLS_PER_ISSUE = 3;
export const KINDS = ['Slack post', 'Teams post', 'GitHub create'] as const;
const SLACK = 0;
const GH_CREATE = 2;
/** Seconds of filing per timeline bucket: where in a window its slowest arrivals fall. */
export const TIMELINE_BUCKET_S = 5;

export interface IntegrationMetrics {
  /** Mean queued → try started (integration_job_lag_seconds), ms, by action. */
  lagMs: Record<string, number>;
  /** Mean job run, provider calls included (integration_call_duration_seconds), ms, by action. */
  runMs: Record<string, number>;
  /** Mean consumer transaction (a batch of events: inbox rows, jobs, commit), ms, and events per transaction. */
  consumeMs: number;
  eventsPerTx: number;
  jobsDueEnd: number;
  consumerLagEnd: number;
  /** Event-loop delay of the replicas over the window (prom-client's default metrics, reset at each scrape): the worst replica's p99 and mean, ms. */
  loopLagP99Ms: number;
  loopLagMeanMs: number;
  /** Claim statements per job run (every replica; `integration_claims_total`) and the share of them that took nothing. */
  claimsPerRun: number;
  emptyClaimShare: number;
}

/** The integration jobs table sampled over a window (every 250 ms). */
export interface JobsSampled {
  runningMean: number;
  runningMax: number;
  /** Pending jobs past their due time, waiting to be claimed (in the hanging run: of the other connections). */
  dueMean: number;
  dueMax: number;
  /** INTEGRATION_WORKERS × replicas: running can never exceed it. */
  cap: number;
  /** Hanging run: the most due jobs the hanging connection had waiting at one sample (not in `dueMean`/`dueMax`). */
  hangingDueMax: number;
}

export interface LatencyPhase {
  name: string;
  label: string;
  durationS: number;
  open: OpenLoopResult;
  /** Filing due → arrival, measured issues only, duplicates dropped, by kind (KINDS order). */
  byKind: LatencySummary[];
  /** Every arrival except at organisation 0's Slack (the connection that hangs in the hanging run). */
  others: LatencySummary;
  /** Slack p99 of the worst organisation. */
  worstOrgSlackP99: number;
  expected: number;
  arrived: number;
  /** Measured calls that had not arrived when the drain timeout ended the wait (counted as infinitely late in the summaries). */
  missing: number;
  duplicates: number;
  refused: number;
  cpu: CpuUsage | undefined;
  settledS: number;
  /** Slack and others' p99 of the issues filed in each `TIMELINE_BUCKET_S` of the measured window. */
  timeline: Array<{ slackP99: number; othersP99: number; othersMax: number }>;
  pauses: PauseCount;
  metrics: IntegrationMetrics;
  /** Run 1 only: what the Postgres backends of each group were doing (lib/pg-activity.ts). */
  db?: PgActivity | undefined;
  jobs?: JobsSampled | undefined;
  /** Hanging run only: what became of the hanging connection's jobs, and breaker transitions. */
  hanging?: { jobs: Record<string, number>; held: number; breakerOpens: number };
}

export interface DirectPhase {
  label: string;
  open: OpenLoopResult;
  /** Due → arrival at the Slack stand-in. */
  arrival: LatencySummary;
  arrived: number;
  expected: number;
}

/** A throughput window (lib/system-bench.ts): offered and outstanding count provider calls (filed issues × CALLS_PER_ISSUE). */
export interface ThroughputPhase extends ThroughputWindow {
  /** Provider calls arriving per second over the window. */
  callsPerS: number;
  /** Sustained only. */
  filedPerS?: number;
  metrics?: IntegrationMetrics;
  db?: PgActivity | undefined;
  jobs?: JobsSampled | undefined;
  /** Sustained only: rows inserted/updated/deleted in the integration schema per issue filed in the window, by table (pg_stat_user_tables). */
  rowsPerIssue?: Record<string, { ins: number; upd: number; del: number; scans: number }>;
  /** Rows the integration schema's jobs table holds at the window's end, by state. */
  jobsEnd?: Record<string, number>;
}

export interface IntegrationsReport extends SystemReport<IntegrationsSettings> {
  direct: DirectPhase;
  latency: LatencyPhase[];
  throughput: ThroughputPhase[];
  cpuGroups: string[];
}

const log = (msg: string) => process.stderr.write(`[bench:integrations] ${msg}\n`);
/** performance.now() and process.hrtime read the same monotonic clock: this turns the one into the other. */
const HR_OFFSET_NS = process.hrtime.bigint() - BigInt(Math.round(performance.now() * 1e6));
const hrOf = (ms: number) => HR_OFFSET_NS + BigInt(Math.round(ms * 1e6));

interface ArrivalRecord {
  k: number;
  o: number;
  phase: string;
  seq: number;
  sentNs: string;
  arrivedNs: string;
}

/** The provider stand-ins' worker thread. */
class Providers extends StandInWorker<ArrivalRecord> {
  readonly counters = new Int32Array(new SharedArrayBuffer(7 * 4));
  ports!: { slack: number; slackDedicated: number; teams: number; github: number };

  async start(): Promise<void> {
    this.ports = (await this.spawn(new URL('./providers-worker.mjs', import.meta.url), { counters: this.counters.buffer })).ports;
  }
  /** Accepted calls of the four kinds together. */
  get calls(): number {
    return Atomics.load(this.counters, 0) + Atomics.load(this.counters, 1) + Atomics.load(this.counters, 2) + Atomics.load(this.counters, 3);
  }
  count(i: number): number {
    return Atomics.load(this.counters, i);
  }
  async behaviour(server: 'slackDedicated', mode: 'normal' | 'hang'): Promise<void> {
    await this.ask({ type: 'behaviour', server, mode });
  }
}

const ACTIONS = ['announce', 'create'] as const;

interface MetricsSnapshot {
  text: string[];
}

/** A window's claim statements per job run and the share of them that took nothing, as the reports print them. */
export const fmtClaims = (m: Pick<IntegrationMetrics, 'claimsPerRun' | 'emptyClaimShare'>) => `${m.claimsPerRun.toFixed(2)} claims per job run (${Math.round(m.emptyClaimShare * 100)} % empty)`;

const claimsOf = (claims: number, empty: number, runs: number) => ({ claimsPerRun: runs > 0 ? claims / runs : 0, emptyClaimShare: claims > 0 ? empty / claims : 0 });

function metricsBetween(a: MetricsSnapshot, b: MetricsSnapshot): IntegrationMetrics {
  const total = (s: MetricsSnapshot, name: string, match?: (line: string) => boolean) => s.text.reduce((acc, t) => acc + metricSum(t, name, match), 0);
  const delta = (name: string, match?: (line: string) => boolean) => total(b, name, match) - total(a, name, match);
  const mean = (name: string, match?: (line: string) => boolean) => (delta(`${name}_sum`, match) / delta(`${name}_count`, match)) * 1000;
  const lagMs: Record<string, number> = {};
  const runMs: Record<string, number> = {};
  for (const action of ACTIONS) {
    const has = (line: string) => line.includes(`action="${action}"`);
    lagMs[action] = mean('integration_job_lag_seconds', has);
    runMs[action] = mean('integration_call_duration_seconds', has);
  }
  return {
    lagMs,
    runMs,
    consumeMs: mean('consumer_processing_duration_seconds'),
    eventsPerTx: delta('consumer_batch_size_sum') / delta('consumer_batch_size_count'),
    jobsDueEnd: Math.max(...b.text.map((t) => metricSum(t, 'integration_jobs_due'))),
    consumerLagEnd: Math.max(...b.text.map((t) => metricSum(t, 'consumer_lag'))),
    loopLagP99Ms: Math.max(...b.text.map((t) => metricSum(t, 'nodejs_eventloop_lag_p99_seconds'))) * 1000,
    loopLagMeanMs: Math.max(...b.text.map((t) => metricSum(t, 'nodejs_eventloop_lag_mean_seconds'))) * 1000,
    ...claimsOf(delta('integration_claims_total'), delta('integration_claims_total', (l) => l.includes('result="empty"')), delta('integration_call_duration_seconds_count')),
  };
}

export async function runIntegrations(s: IntegrationsSettings, onCleanup: Cleanup): Promise<IntegrationsReport> {
  const machine = machineFacts();
  const workers = Number(s.serviceEnv.INTEGRATION_WORKERS ?? 64);
  const perConnection = Number(s.serviceEnv.INTEGRATION_MAX_CONCURRENCY_PER_CONNECTION ?? 8);
  const bareConcurrency = s.bareConcurrency > 0 ? s.bareConcurrency : s.integrationReplicas * workers;

  const providers = new Providers();
  await providers.start();
  onCleanup(() => providers.close());
  const pauses = watchMachinePauses();
  onCleanup(async () => pauses.stop());

  const overrides: Record<string, string> = { LOG_LEVEL: s.logLevel, RATE_LIMIT_MAX: '1000000', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ...s.serviceEnv };
  const sys: RunningSystem = await startBenchSystem({
    env: overrides,
    cpuProfDir: s.cpuProfDir,
    replicas: { integration: s.integrationReplicas },
    standIn: providers,
    onCleanup,
    log,
    describe: `; integration × ${s.integrationReplicas}`,
  });
  const pid = (p: { child: { pid?: number | undefined } }) => p.child.pid ?? 0;
  const groups: CpuGroups = {
    integration: sys.replicas.integration.map(pid),
    gateway: [pid(sys.processes.gateway)],
    issue: [pid(sys.processes.issue)],
    'other services': [pid(sys.processes.campaign), pid(sys.processes.delivery), pid(sys.processes.webhook)],
    harness: [process.pid],
  };
  const meterOf = () => cpuMeter(groups, { postgresByClient: true });

  // Organisations, each with a key, an active campaign and its three connections.
  const a = admin(sys);
  const base = (port: number) => `http://127.0.0.1:${port}`;
  const orgs: Array<{ orgId: string; key: string; campaignId: string; slackUrl: string; slackId: string }> = [];
  for (let k = 0; k < s.orgs; k++) {
    const org = await a.createOrg(`Integrations bench ${k}`);
    const key = await a.createKey(org.id, ['read', 'write'], 'bench');
    const site = await a.createSite(org.id);
    const campaign = await a.createCampaign(site.id, `Bench launch ${k}`);
    await a.setCampaignStatus(campaign.id, 'Active');
    const connect = async (body: Record<string, unknown>) => {
      const res = await call(sys, 'POST', `/admin/v1/organizations/${org.id}/integrations`, { token: sys.adminToken, body });
      if (res.status !== 201) throw new Error(`connecting ${String(body.kind)} for org ${k} → ${res.status} ${res.text}`);
      return res.body as { id: string };
    };
    // Organisation 0's Slack is a dedicated instance: the one that hangs in the hanging run.
    const slackUrl = `${base(k === 0 ? providers.ports.slackDedicated : providers.ports.slack)}/services/TBENCH${k}/BBENCH${k}/secret${k}`;
    const slack = await connect({ kind: 'slack', name: `Slack ${k}`, config: {}, credentials: { webhookUrl: slackUrl } });
    await connect({ kind: 'teams', name: `Teams ${k}`, config: {}, credentials: { webhookUrl: `${base(providers.ports.teams)}/workflows/${k}/invoke?api-version=1&sig=${randomBytes(16).toString('base64url')}` } });
    await connect({
      kind: 'github',
      name: `GitHub ${k}`,
      config: { owner: 'bench', repo: `org-${k}`, apiBaseUrl: base(providers.ports.github) },
      credentials: { token: `ghp_${randomBytes(18).toString('base64url')}` },
    });
    orgs.push({ orgId: org.id, key: key.key, campaignId: campaign.id, slackUrl, slackId: slack.id });
  }
  log(`${s.orgs} organisations, each with Slack, Teams and GitHub connections → 127.0.0.1:${Object.values(providers.ports).join(',')}`);

  const gateway = new Pool(sys.gatewayUrl, { connections: 256, pipelining: 1, headersTimeout: 30_000, bodyTimeout: 30_000 });
  onCleanup(() => gateway.close());
  /** Files issue `seq` of `phase` for organisation seq % orgs; its title carries the moment it was due. */
  const file = async (phase: string, seq: number, dueMs: number): Promise<void> => {
    const o = orgs[seq % orgs.length]!;
    const body = JSON.stringify({ title: `bench:${phase}:${seq}:${hrOf(dueMs)}`, severity: 'High', type: 'Bug', pageUrl: 'https://shop.example.com/checkout', description: 'Filed by the integration benchmark.' });
    const res = await gateway.request({ path: `/api/v1/campaigns/${o.campaignId}/issues`, method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': o.key }, body });
    await res.body.dump();
    if (res.statusCode !== 201) throw new Error(`HTTP ${res.statusCode}`);
  };

  const scrape = async (): Promise<MetricsSnapshot> => ({
    text: await Promise.all(sys.replicas.integration.map(async (p) => (await fetch(`${p.url}/metrics`)).text().catch(() => ''))),
  });
  const quiesce = () => settleGroups(groups, log);
  /** Waits (bounded) until the providers have taken `target` calls in all; the seconds waited, NaN on timeout. */
  const waitCalls = (target: number, timeoutS: number) => waitForCount(() => providers.calls, target, timeoutS);
  const tableWrites = () =>
    withBenchClient(async (client) => {
      const { rows } = await client.query<{ t: string; ins: string; upd: string; del: string; scans: string }>(
        'select relname as t, n_tup_ins as ins, n_tup_upd as upd, n_tup_del as del, seq_scan + coalesce(idx_scan, 0) as scans from pg_stat_user_tables where schemaname = $1',
        [sys.schemas.integration],
      );
      return new Map(rows.map((r) => [r.t, { ins: Number(r.ins), upd: Number(r.upd), del: Number(r.del), scans: Number(r.scans) }]));
    });
  /** Samples the integration jobs every 250 ms: how many are running (the worker's cap is INTEGRATION_WORKERS per replica) and how many wait past their due time. */
  const jobsSampler = (hangingConnection?: string) => {
    let on = true;
    const running = new Samples();
    const due = new Samples();
    let hangingDueMax = 0;
    const schema = sys.schemas.integration;
    const done = withBenchClient(async (client) => {
      while (on) {
        // With a hanging connection, its own jobs are counted apart: `due` is what the other connections have waiting.
        const { rows } = await client.query<{ running: string; due: string; hanging: string }>(
          `select count(*) filter (where state = 'running') as running,
                  count(*) filter (where state = 'pending' and due_at <= now() and connection_id is distinct from $1) as due,
                  count(*) filter (where state = 'pending' and due_at <= now() and connection_id = $1) as hanging
             from "${schema}".jobs where state in ('running', 'pending')`,
          [hangingConnection ?? null],
        );
        running.push(Number(rows[0]!.running));
        due.push(Number(rows[0]!.due));
        hangingDueMax = Math.max(hangingDueMax, Number(rows[0]!.hanging));
        await sleep(250);
      }
    });
    return {
      async stop(): Promise<JobsSampled> {
        on = false;
        await done;
        const r = summarise(running.values());
        const d = summarise(due.values());
        return { runningMean: r.mean, runningMax: r.max, dueMean: d.mean, dueMax: d.max, cap: s.integrationReplicas * workers, hangingDueMax };
      },
    };
  };
  const vacuum = async () => {
    await vacuumSchemas(Object.values(sys.schemas));
    log("vacuumed and analysed every service's tables");
  };

  // Smoke: one issue reaches all four calls (also warms every path).
  {
    const before = providers.calls;
    await file('smoke', 0, performance.now());
    if (Number.isNaN(await waitCalls(before + CALLS_PER_ISSUE, 30))) throw new Error(`the smoke issue did not make its ${CALLS_PER_ISSUE} provider calls within 30 s (${providers.calls - before} arrived, ${providers.count(5)} refused)`);
    await providers.collect();
    log('smoke issue announced and created');
  }

  async function latencyPhase(name: string, label: string, durationS: number, opts: { hang?: boolean; warmupS?: number; db?: boolean } = {}): Promise<LatencyPhase> {
    const settledS = await quiesce();
    const warmupS = opts.warmupS ?? s.warmupS;
    log(`${label}: ${s.rate} issues/s over ${s.orgs} organisations, ${warmupS} s warm-up + ${durationS} s`);
    const warmupCount = Math.round(s.rate * warmupS);
    const c0 = providers.calls;
    const refused0 = providers.count(5);
    const held0 = providers.count(6);
    let filed = 0;
    let filedOrg0 = 0;
    const failed = new Set<number>();
    const meter = meterOf();
    await meter.prepare();
    const before = await scrape();
    const sampler = opts.db ? pgActivitySampler(groups) : undefined;
    let jobsWatch: ReturnType<typeof jobsSampler> | undefined;
    const phaseStart = Date.now();
    const open = await openLoop(
      async (i, dueMs) => {
        try {
          await file(name, i, dueMs);
          filed += 1;
          if (i % s.orgs === 0) filedOrg0 += 1;
        } catch (err) {
          failed.add(i);
          throw err;
        }
      },
      {
        rate: s.rate,
        warmupS,
        durationS,
        drainTimeoutS: 15,
        window: {
          start: () => {
            meter.start();
            void sampler?.start();
            jobsWatch = jobsSampler(opts.hang ? orgs[0]!.slackId : undefined);
          },
          stop: () => undefined,
        },
      },
    );
    const expectedCalls = filed * CALLS_PER_ISSUE - (opts.hang ? filedOrg0 : 0);
    const drainS = await waitCalls(c0 + expectedCalls, s.drainTimeoutS);
    meter.stop();
    const db = await sampler?.stop();
    const jobs = await jobsWatch?.stop();
    const after = await scrape();
    if (Number.isNaN(drainS)) log(`  not every call arrived within ${s.drainTimeoutS} s: ${providers.calls - c0} of ${expectedCalls}`);
    const records = (await providers.collect()).filter((r) => r.phase === name && r.seq >= warmupCount);
    const seen = new Set<string>();
    const byKind = KINDS.map(() => new Samples());
    const others = new Samples();
    const slackByOrg = Array.from({ length: s.orgs }, () => new Samples());
    const buckets = Array.from({ length: Math.ceil(durationS / TIMELINE_BUCKET_S) }, () => ({ slack: new Samples(), others: new Samples() }));
    let duplicates = 0;
    for (const r of records) {
      const key = `${r.k}:${r.seq}`;
      if (r.k >= KINDS.length) continue;
      if (seen.has(key)) {
        duplicates += 1;
        continue;
      }
      seen.add(key);
      const ms = Number(BigInt(r.arrivedNs) - BigInt(r.sentNs)) / 1e6;
      byKind[r.k]!.push(ms);
      const bucket = bucketOf(buckets, r.seq, warmupCount, s.rate, TIMELINE_BUCKET_S);
      if (r.k === SLACK) {
        slackByOrg[r.seq % s.orgs]!.push(ms);
        bucket.slack.push(ms);
      }
      if (!(r.k === SLACK && r.seq % s.orgs === 0)) {
        others.push(ms);
        bucket.others.push(ms);
      }
    }
    let measuredIssues = 0;
    let measuredOrg0 = 0;
    for (let i = warmupCount; i < warmupCount + open.scheduled; i++) {
      if (failed.has(i)) continue;
      measuredIssues += 1;
      if (i % s.orgs === 0) measuredOrg0 += 1;
    }
    // A call that never arrived (within the drain timeout) counts as infinitely late, so a p99
    // with more than 1 % of its calls missing is infinite rather than the p99 of the lucky ones.
    const missing = KINDS.map((_, k) => Math.max(0, (k === SLACK && opts.hang ? measuredIssues - measuredOrg0 : measuredIssues) - byKind[k]!.length));
    missing.forEach((n, k) => {
      for (let i = 0; i < n; i++) {
        byKind[k]!.push(Infinity);
        others.push(Infinity);
      }
    });
    const windowFrom = phaseStart + warmupS * 1000;
    const kindSummaries = byKind.map((k) => summarise(k.values()));
    const phase: LatencyPhase = {
      name,
      label,
      durationS,
      open,
      byKind: kindSummaries,
      others: summarise(others.values()),
      worstOrgSlackP99: Math.max(...slackByOrg.map((p) => summarise(p.values()).p99).filter((v) => !Number.isNaN(v))),
      expected: measuredIssues * CALLS_PER_ISSUE - (opts.hang ? measuredOrg0 : 0),
      arrived: seen.size - (opts.hang ? records.filter((r) => r.k === SLACK && r.seq % s.orgs === 0).length : 0),
      missing: missing.reduce((x, y) => x + y, 0),
      duplicates,
      refused: providers.count(5) - refused0,
      cpu: meter.usage,
      settledS,
      timeline: buckets.map((b) => {
        const sl = summarise(b.slack.values());
        const ot = summarise(b.others.values());
        return { slackP99: sl.p99, othersP99: ot.p99, othersMax: ot.max };
      }),
      pauses: pauses.during(windowFrom, windowFrom + durationS * 1000 + Math.max(0, ...kindSummaries.map((k) => (Number.isFinite(k.max) ? k.max : s.drainTimeoutS * 1000)))),
      metrics: metricsBetween(before, after),
      db,
      jobs,
    };
    if (opts.hang) {
      const { rows } = await withBenchClient((client) =>
        client.query<{ state: string; n: string }>(`select state, count(*) as n from "${sys.schemas.integration}".jobs where connection_id = $1 group by state`, [orgs[0]!.slackId]),
      );
      const opens = after.text.reduce((acc, t) => acc + metricSum(t, 'integration_circuit_breaker_transitions_total', (l) => l.includes('"open"')), 0);
      const opens0 = before.text.reduce((acc, t) => acc + metricSum(t, 'integration_circuit_breaker_transitions_total', (l) => l.includes('"open"')), 0);
      phase.hanging = { jobs: Object.fromEntries(rows.map((r) => [r.state, Number(r.n)])), held: providers.count(6) - held0, breakerOpens: opens - opens0 };
      log(`  hanging connection: ${phase.hanging.held} calls held, breaker opened ${phase.hanging.breakerOpens}×, its jobs ${JSON.stringify(phase.hanging.jobs)}`);
    }
    const k = phase.byKind;
    log(`  p99 Slack ${k[0]!.p99.toFixed(1)} ms, Teams ${k[1]!.p99.toFixed(1)}, GitHub create ${k[2]!.p99.toFixed(1)}; others ${phase.others.p99.toFixed(1)} (max ${phase.others.max.toFixed(0)}); create answer p99 ${open.latency.p99.toFixed(1)} ms`);
    log(`  ${phase.arrived}/${phase.expected} calls arrived (${phase.missing} missing), ${duplicates} duplicates, ${phase.refused} refused${open.problems.length ? `; PROBLEMS: ${open.problems.join(', ')}` : ''}`);
    log(`  others' p99 by ${TIMELINE_BUCKET_S} s of filing: ${phase.timeline.map((t) => t.othersP99.toFixed(1)).join(' · ')} ms; machine pauses ≥ ${REPORTED_PAUSE_MS} ms: ${phase.pauses.count}`);
    if (jobs) log(`  jobs: running mean ${jobs.runningMean.toFixed(0)}, max ${jobs.runningMax} (cap ${jobs.cap}); due and unclaimed mean ${jobs.dueMean.toFixed(0)}, max ${jobs.dueMax}${opts.hang ? ` (others); the hanging connection's due jobs up to ${jobs.hangingDueMax}` : ''}`);
    log(`  service: mean job lag ${fmtAction(phase.metrics.lagMs)}, mean job run ${fmtAction(phase.metrics.runMs)}, event-loop delay p99 ${phase.metrics.loopLagP99Ms.toFixed(1)} ms, consumer ${phase.metrics.consumeMs.toFixed(1)} ms per transaction of ${phase.metrics.eventsPerTx.toFixed(1)} events, ${fmtClaims(phase.metrics)}`);
    return phase;
  }

  /** The transport floor: the same open loop posting a Slack message straight to the Slack stand-in. */
  async function directPhase(): Promise<DirectPhase> {
    await quiesce();
    const name = 'direct';
    const label = 'generator → Slack stand-in directly (undici keep-alive pool)';
    log(`${label}: ${s.rate}/s, ${s.warmupS} s warm-up + ${s.durationS} s`);
    const pool = new Pool(base(providers.ports.slack), { connections: 64, pipelining: 1 });
    const warmupCount = Math.round(s.rate * s.warmupS);
    const open = await openLoop(
      async (i, dueMs) => {
        const k = 1 + (i % Math.max(1, s.orgs - 1));
        const title = `bench:${name}:${i}:${hrOf(dueMs)}`;
        const body = JSON.stringify(slackLike(title, i));
        const res = await pool.request({ path: `/services/TBENCH${k}/BBENCH${k}/secret${k}`, method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
      },
      { rate: s.rate, warmupS: s.warmupS, durationS: s.durationS, drainTimeoutS: 15 },
    );
    await pool.close();
    const records = (await providers.collect()).filter((r) => r.phase === name && r.seq >= warmupCount);
    const arrival = summarise(records.map((r) => Number(BigInt(r.arrivedNs) - BigInt(r.sentNs)) / 1e6));
    log(`  arrival p50 ${arrival.p50.toFixed(2)} ms, p99 ${arrival.p99.toFixed(2)} ms; ${records.length}/${open.scheduled}`);
    return { label, open, arrival, arrived: records.length, expected: open.scheduled };
  }

  async function sustainedPhase(): Promise<ThroughputPhase> {
    const settledS = await quiesce();
    const name = 'sustained';
    log(`sustained: filing while fewer than ${s.feedWindow} provider calls are outstanding (at most ${s.fileConcurrency} filings in flight), ${s.tpWarmupS} s warm-up + ${s.tpDurationS} s`);
    const a0 = providers.calls;
    const meter = meterOf();
    await meter.prepare();
    let before: Promise<MetricsSnapshot> | undefined;
    const sampler = pgActivitySampler(groups);
    let writesBefore: ReturnType<typeof tableWrites> | undefined;
    let jobsWatch: ReturnType<typeof jobsSampler> | undefined;
    const feed = await feedWindow({
      warmupS: s.tpWarmupS,
      durationS: s.tpDurationS,
      units: CALLS_PER_ISSUE,
      feedWindow: s.feedWindow,
      batch: 1,
      arrived: () => providers.calls,
      room: (f) => f.pending < s.fileConcurrency,
      send: (seq) => file(name, seq, performance.now()),
      onStart: () => {
        meter.start();
        before = scrape();
        writesBefore = tableWrites();
        jobsWatch = jobsSampler();
        void sampler.start();
        cutProfiles(sys, s.cpuProfDir);
      },
    });
    const [aStart, fStart, oStart] = [feed.start.arrived, feed.start.sent, feed.start.outstanding];
    const [aEnd, fEnd, oEnd] = [feed.end.arrived, feed.end.sent, feed.end.outstanding];
    meter.stop();
    const db = await sampler.stop();
    const jobs = await jobsWatch?.stop();
    cutProfiles(sys, s.cpuProfDir);
    const after = await scrape();
    // Statistics reach pg_stat_user_tables within a second or so of each transaction.
    await sleep(1_500);
    const [w0, w1] = [await writesBefore!, await tableWrites()];
    const filedInWindow = fEnd - fStart;
    const rowsPerIssue = Object.fromEntries(
      [...w1].map(([t, v]) => {
        const b = w0.get(t) ?? { ins: 0, upd: 0, del: 0, scans: 0 };
        const per = (k: 'ins' | 'upd' | 'del' | 'scans') => (v[k] - b[k]) / filedInWindow;
        return [t, { ins: per('ins'), upd: per('upd'), del: per('del'), scans: per('scans') }];
      }),
    );
    const jobsEnd = await withBenchClient(async (client) => {
      const { rows } = await client.query<{ state: string; n: string }>(`select state, count(*) as n from "${sys.schemas.integration}".jobs group by state`);
      return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
    });
    await feed.settled();
    const drainS = await waitCalls(a0 + feed.state.done * CALLS_PER_ISSUE, s.drainTimeoutS);
    await providers.collect();
    const o = summarise(feed.outstanding.values());
    const phase: ThroughputPhase = {
      name,
      label: `the system: file through the gateway → consumer → jobs → provider calls; feed window ${s.feedWindow.toLocaleString('en-US')} calls`,
      concurrency: s.fileConcurrency,
      windowS: s.tpDurationS,
      callsPerS: (aEnd - aStart) / s.tpDurationS,
      filedPerS: (fEnd - fStart) / s.tpDurationS,
      offeredPerS: ((fEnd - fStart) * CALLS_PER_ISSUE) / s.tpDurationS,
      outstandingStart: oStart,
      outstandingEnd: oEnd,
      outstandingMean: o.mean,
      outstandingMax: o.max,
      drainS,
      bounded: !Number.isNaN(drainS) && oEnd - oStart <= 0.1 * s.feedWindow,
      metrics: metricsBetween(await before!, after),
      db,
      jobs,
      rowsPerIssue,
      jobsEnd,
      errors: feed.state.errors,
      cpu: meter.usage,
      settledS,
    };
    log(
      `  ${Math.round(phase.callsPerS)} calls/s at the providers (${Math.round(phase.filedPerS!)} issues/s filed), outstanding ${oStart} → ${oEnd} (max ${o.max}), ` +
        `drained in ${drainS.toFixed(1)} s, jobs due at the end ${phase.metrics!.jobsDueEnd}, consumer lag ${phase.metrics!.consumerLagEnd}; ${phase.errors} filing errors`,
    );
    if (jobs) log(`  jobs: running mean ${jobs.runningMean.toFixed(0)}, max ${jobs.runningMax} (cap ${jobs.cap}); due and unclaimed mean ${jobs.dueMean.toFixed(0)}, max ${jobs.dueMax}`);
    log(`  service: mean job lag ${fmtAction(phase.metrics!.lagMs)}, mean job run ${fmtAction(phase.metrics!.runMs)}, event-loop delay p99 ${phase.metrics!.loopLagP99Ms.toFixed(1)} ms, consumer ${phase.metrics!.consumeMs.toFixed(1)} ms per transaction of ${phase.metrics!.eventsPerTx.toFixed(1)} events, ${fmtClaims(phase.metrics!)}`);
    return phase;
  }

  /** The stand-ins' own capacity: the same four calls per issue, straight from the generator, closed loop. */
  async function barePhase(): Promise<ThroughputPhase> {
    const settledS = await quiesce();
    const name = 'bare';
    const label = `bare undici loop, the four calls of an issue in turn (Slack, Teams, GitHub create, GitHub read), keep-alive pools`;
    // The stand-ins need no long warm-up (the sustained run's fills a deep backlog first).
    const warmS = Math.min(3, s.tpWarmupS);
    log(`${label}: ${bareConcurrency} loops, ${warmS} s warm-up + ${s.tpDurationS} s`);
    const pools = {
      slack: new Pool(base(providers.ports.slack), { connections: bareConcurrency, pipelining: 1 }),
      teams: new Pool(base(providers.ports.teams), { connections: bareConcurrency, pipelining: 1 }),
      github: new Pool(base(providers.ports.github), { connections: bareConcurrency, pipelining: 1 }),
    };
    const meter = meterOf();
    await meter.prepare();
    let aStart = NaN;
    const { errors, latency: lat } = await bareLoop({
      warmupS: warmS,
      durationS: s.tpDurationS,
      concurrency: bareConcurrency,
      onStart: () => {
        meter.start();
        aStart = providers.calls;
      },
      loop: (w, t) => {
        const k = w % s.orgs;
        const timed = async (pool: Pool, opts: Parameters<Pool['request']>[0], expect: number): Promise<string> => {
          const sent = performance.now();
          const res = await pool.request(opts);
          const text = await res.body.text();
          if (res.statusCode !== expect) throw new Error(`HTTP ${res.statusCode}`);
          t.record(sent);
          return text;
        };
        return async (n) => {
          const title = `bench:${name}:${n}:${process.hrtime.bigint()}`;
          await timed(pools.slack, { path: `/services/TBENCH${k}/BBENCH${k}/secret${k}`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(slackLike(title, n)) }, 200);
          await timed(pools.teams, { path: `/workflows/${k}/invoke?api-version=1&sig=bench`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(teamsLike(title, n)) }, 202);
          const gh = { 'content-type': 'application/json', authorization: 'token ghp_bench', accept: 'application/vnd.github.v3+json' };
          const created = JSON.parse(
            await timed(pools.github, { path: `/repos/bench/org-${k}/issues`, method: 'POST', headers: gh, body: JSON.stringify({ title: `[#${n}] ${title}`, body: trackerBodyLike(title), labels: ['severity: High', 'type: Bug'] }) }, 201),
          ) as { number: number };
          await timed(pools.github, { path: `/repos/bench/org-${k}/issues/${created.number}`, method: 'GET', headers: gh }, 200);
        };
      },
    });
    const aEnd = providers.calls;
    meter.stop();
    await Promise.all(Object.values(pools).map((p) => p.close()));
    await providers.collect();
    const phase: ThroughputPhase = {
      name,
      label,
      concurrency: bareConcurrency,
      windowS: s.tpDurationS,
      callsPerS: (aEnd - aStart) / s.tpDurationS,
      latency: summarise(lat.values()),
      errors,
      cpu: meter.usage,
      settledS,
    };
    log(`  ${Math.round(phase.callsPerS)} calls/s at the stand-ins, request p99 ${phase.latency!.p99.toFixed(2)} ms, ${errors} errors`);
    return phase;
  }

  const latency: LatencyPhase[] = [];
  const throughput: ThroughputPhase[] = [];
  // Unmeasured: processes just started run slower for several seconds (code not yet
  // optimised, pools and caches empty); run 1 then measures working processes. A 10 s run
  // left them still warming 10 s into run 1 (docs/benchmarks-history.md).
  await latencyPhase('warm', 'warm-up run (not reported)', s.warmRunS, { warmupS: 0 });
  const direct = await directPhase();
  latency.push(await latencyPhase('run1', `run 1: ${s.orgs} organisations × 3 healthy connections`, s.durationS, { db: true }));
  throughput.push(await sustainedPhase());
  throughput.push(await barePhase());
  // The compared runs start from the same table state (the phases before leave dead row versions).
  await vacuum();
  latency.push(await latencyPhase('control', 'control (just before the hanging run)', s.compareDurationS));
  await vacuum();
  await providers.behaviour('slackDedicated', 'hang');
  log("organisation 0's Slack webhook now hangs (requests read, never answered)");
  try {
    latency.push(await latencyPhase('hanging', "organisation 0's Slack webhook hanging", s.compareDurationS, { hang: true }));
  } finally {
    await providers.behaviour('slackDedicated', 'normal');
  }

  const [run1, control, hanging] = latency as [LatencyPhase, LatencyPhase, LatencyPhase];
  const [sustained, bare] = throughput as [ThroughputPhase, ThroughputPhase];
  const fmt = (v: number) => (Number.isFinite(v) ? `${v.toFixed(1)} ms` : v === Infinity ? `not arrived within ${s.drainTimeoutS} s` : '–');
  const complete = (p: LatencyPhase) => p.arrived >= p.expected && p.open.failed === 0;
  const slackP99 = run1.byKind[SLACK]!.p99;
  const githubP99 = run1.byKind[GH_CREATE]!.p99;
  const createP99 = run1.open.latency.p99;
  const checks: Check[] = [
    {
      target: `issue filed → Slack arrival p99 ≤ 250 ms at ${s.rate} issues/s (${s.orgs} organisations × 3 connections)`,
      measured: `${fmt(slackP99)} (create answered p99 ${fmt(createP99)}; direct to the stand-in p99 ${fmt(direct.arrival.p99)})`,
      threshold: '≤ 250 ms',
      ratio: `${ratio(slackP99, createP99).toFixed(1)}× the create answer's p99; ${(slackP99 / 250).toFixed(2)}× of the limit`,
      pass: slackP99 <= 250 && complete(run1),
    },
    {
      target: 'issue filed → GitHub issue created p99 ≤ 500 ms (same run)',
      measured: fmt(githubP99),
      threshold: '≤ 500 ms',
      ratio: `${ratio(githubP99, createP99).toFixed(1)}× the create answer's p99; ${(githubP99 / 500).toFixed(2)}× of the limit`,
      pass: githubP99 <= 500 && complete(run1),
    },
    {
      target: 'sustained outbound calls/s ≥ 500 (backlog bounded)',
      measured: `${Math.round(sustained.callsPerS)}/s${sustained.bounded ? '' : ', backlog NOT bounded'} (bare loop ${Math.round(bare.callsPerS)}/s)`,
      threshold: '≥ 500/s',
      ratio: `${(sustained.callsPerS / 500).toFixed(2)}× of the target; ${ratio(sustained.callsPerS, bare.callsPerS).toFixed(2)}× the bare loop`,
      pass: sustained.callsPerS >= 500 && sustained.bounded === true,
    },
    {
      target: `others' p99 beside a hanging Slack webhook ≤ 1.2× the control run (both ${s.compareDurationS} s)`,
      measured: `${fmt(hanging.others.p99)} vs ${fmt(control.others.p99)}`,
      threshold: '≤ 1.20×',
      ratio: `${ratio(hanging.others.p99, control.others.p99).toFixed(2)}×`,
      pass: ratio(hanging.others.p99, control.others.p99) <= 1.2 && complete(hanging),
    },
  ];
  // Each as --service-env set it, else the service's default (the gateway's rate limit: this run's).
  const serviceSettings = serviceSettingsOf(s, {
    'integration replicas': String(s.integrationReplicas),
    INTEGRATION_WORKERS: String(workers),
    INTEGRATION_MAX_CONCURRENCY_PER_CONNECTION: String(perConnection),
    INTEGRATION_CALL_TIMEOUT_MS: '10000',
    INTEGRATION_POLL_INTERVAL_MS: '1000',
    INTEGRATION_BREAKER_RESET_MS: '30000',
    INTEGRATION_BREAKER_VOLUME_THRESHOLD: '5',
    DB_POOL_MAX: '10',
    RATE_LIMIT_MAX: overrides.RATE_LIMIT_MAX!,
  });
  const cpuGroups = [...Object.keys(groups).map((g) => [g, `postgres (${g})`]).flat(), 'postgres', 'nats', 'redis', 'other', 'stolen'];
  return { settings: s, machine, loadAtEnd: machineFacts().loadAverage, serviceSettings, direct, latency, throughput, checks, cpuGroups };
}

const fmtAction = (m: Record<string, number>) =>
  Object.entries(m)
    .map(([a, v]) => `${a} ${Number.isFinite(v) ? v.toFixed(1) : '–'} ms`)
    .join(', ');

/** Bodies shaped like the service's own (a Block Kit message, an Adaptive Card, a tracker issue) for the baselines. */
function slackLike(title: string, n: number) {
  return {
    text: `New issue #${n} ${title}`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: title, emoji: false } },
      {
        type: 'section',
        fields: ['Severity\nHigh', 'Type\nBug', 'Status\nNew', 'Campaign\nBench launch', 'Page\nhttps://shop.example.com/checkout', 'Reported by\nAPI key bench'].map((t) => ({ type: 'mrkdwn', text: `*${t.split('\n')[0]}*\n${t.split('\n')[1]}` })),
      },
      { type: 'actions', elements: [{ type: 'button', action_id: 'open-issue', text: { type: 'plain_text', text: 'Open in Preflight' }, url: 'http://127.0.0.1/dashboard/issues/x' }] },
    ],
  };
}

function teamsLike(title: string, n: number) {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        content: {
          type: 'AdaptiveCard',
          version: '1.5',
          body: [
            { type: 'TextBlock', text: `New issue #${n}`, weight: 'Bolder' },
            { type: 'TextBlock', text: title, wrap: true },
            { type: 'FactSet', facts: ['Severity', 'Type', 'Status', 'Campaign', 'Page'].map((t) => ({ title: t, value: 'x' })) },
          ],
          actions: [{ type: 'Action.OpenUrl', title: 'Open in Preflight', url: 'http://127.0.0.1/dashboard/issues/x' }],
        },
      },
    ],
  };
}

function trackerBodyLike(title: string): string {
  return `**Severity:** High\n**Type:** Bug\n**Status:** New\n**Campaign:** Bench launch\n**Page:** https://shop.example.com/checkout\n\n${title}\n\nFiled by the integration benchmark.\n\n[Open in Preflight](http://127.0.0.1/dashboard/issues/x)\n\n<!-- preflight-issue: x -->`;
}

export type { CpuUsage };
