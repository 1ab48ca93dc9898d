import { createHmac, randomUUID } from 'node:crypto';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { headers } from '@nats-io/nats-core';
import { Agent, Pool, request } from 'undici';
import { EVENT_TYPE_HEADER, ORG_ID_HEADER, connectNats } from '@preflight/bus';
import { createEvent, encodeEvent, envelopesFor, toTimestamp } from '@preflight/events';
import { createLogger } from '@preflight/log';
import { TEST_NATS_URL } from '@preflight/testing';
import { admin, call } from '../../support/client.ts';
import type { RunningSystem } from '../../support/system.ts';
import { cpuMeter, type CpuGroups, type CpuUsage } from '../lib/cpu.ts';
import { machineFacts } from '../lib/machine.ts';
import { REPORTED_PAUSE_MS, watchMachinePauses, type PauseCount } from '../lib/machine-pauses.ts';
import { openLoop, type OpenLoopResult } from '../lib/open-loop.ts';
import { rssSampler } from '../lib/rss.ts';
import { Samples, summarise, type LatencySummary } from '../lib/stats.ts';
import { vacuumSchemas, withBenchClient } from '../lib/postgres.ts';
import { bareLoop, bucketOf, cutProfiles, feedWindow, metricValue, quiesce as settleGroups, ratio, StandInWorker, startBenchSystem, waitForCount } from '../lib/system-bench.ts';
import { QUICK_SYSTEM_BENCH, serviceSettingsOf, systemBenchDefaults, type Check, type Cleanup, type SystemBenchSettings, type SystemReport, type ThroughputWindow } from '../lib/system-bench.ts';

/**
 * The delivery benchmark (issue "Webhooks: … the delivery service"): IssueCreated domain events
 * published straight onto the system's stream (as the outbox relay does: Nats-Msg-Id, event
 * type and Preflight-Org-Id headers) for one organisation with N webhooks pointing at loopback
 * receivers (a worker thread of this process). Every service runs as its own process
 * (tests/support/system.ts) with its production defaults. Latency is receiver arrival − the
 * moment the event was built for publishing, both on the machine's monotonic clock.
 */
export interface DeliverySettings extends SystemBenchSettings {
  endpoints: number;
  /**
   * Delivery service processes (replicas sharing its schema and consumer). Default 2, the
   * chart's `replicaCount`: the service as it is deployed. Each holds its own in-flight bounds,
   * and the bare loops use the same number in flight as all of them together.
   */
  deliveryReplicas: number;
  /** Open loop, events/s (deliveries/s = rate × endpoints). */
  rate: number;
  /**
   * Measured seconds of the control run and of the run with a hanging endpoint, which are
   * compared with each other: longer than run 1, so each p99 rests on 30,000 deliveries and a
   * stall or two of the machine moves it less.
   */
  compareDurationS: number;
  /** Sustained phase: deliveries outstanding (published × endpoints − arrived) the publisher keeps the system fed with. */
  feedWindow: number;
}

export const DEFAULT_DELIVERY_SETTINGS: DeliverySettings = { ...systemBenchDefaults(), endpoints: 10, deliveryReplicas: 2, durationS: 10, compareDurationS: 60, feedWindow: 2_000, tpWarmupS: 2, tpDurationS: 10 };

export const QUICK_DELIVERY_SETTINGS: Partial<DeliverySettings> = { ...QUICK_SYSTEM_BENCH, tpWarmupS: 0.5 };

export interface LatencyPhase {
  name: string;
  label: string;
  open: OpenLoopResult;
  /** Publish → arrival, healthy receivers, measured events only, duplicates dropped. */
  latency: LatencySummary;
  /** The worst receiver's p99. */
  worstReceiverP99: number;
  expected: number;
  arrived: number;
  duplicates: number;
  badSignatures: number;
  cpu: CpuUsage | undefined;
  settledS: number;
  /** p99 and max of the events published in each `TIMELINE_BUCKET_S` of the measured window, in order. */
  timeline: Array<{ p99: number; max: number }>;
  /** Gaps of an idle process's timer of at least `REPORTED_PAUSE_MS` in the measured window (lib/machine-pauses.ts). */
  pauses: PauseCount;
  /** Largest RSS (MB) of each service's largest process during the phase. */
  rssMb: Record<string, number>;
}

/** Seconds of publishing per timeline bucket: where in a window its slowest deliveries fall. */
export const TIMELINE_BUCKET_S = 5;

/**
 * A throughput window (lib/system-bench.ts). Sustained (system): deliveries offered = published
 * events × endpoints, outstanding = published × endpoints − arrived. Bare loop: latency is
 * request → arrival.
 */
export interface ThroughputPhase extends ThroughputWindow {
  /** Arrivals at the receivers per second over the window. */
  deliveredPerS: number;
  /** From the delivery service's /metrics at the window's end. */
  pendingRowsEnd?: number;
  consumerLagEnd?: number;
  /** Mean attempt duration over the window as the delivery service measures it (its histogram's sum ÷ count): request → answer inside the service. */
  attemptMeanMs?: number;
  /** Largest RSS (MB) of each service's largest process during the window (warm-up included). */
  rssMb?: Record<string, number>;
}

export interface DeliveryReport extends SystemReport<DeliverySettings> {
  latency: LatencyPhase[];
  throughput: ThroughputPhase[];
}

const log = (msg: string) => process.stderr.write(`[bench:delivery] ${msg}\n`);
const nowNs = () => process.hrtime.bigint();

export interface ArrivalRecord {
  r: number;
  id: string;
  phase: string;
  seq: number;
  publishedNs: string;
  arrivedNs: string;
  ok: boolean;
}

/** The receivers' worker thread. */
export class Receivers extends StandInWorker<ArrivalRecord> {
  readonly counters = new Int32Array(new SharedArrayBuffer(8));
  healthyPorts: number[] = [];
  hangingPorts: number[] = [];

  async start(healthy: number, hanging: number): Promise<void> {
    const msg = await this.spawn(new URL('./receivers-worker.mjs', import.meta.url), { healthy, hanging, counters: this.counters.buffer });
    this.healthyPorts = msg.healthyPorts;
    this.hangingPorts = msg.hangingPorts;
  }
  get arrivals(): number {
    return Atomics.load(this.counters, 0);
  }
  get badSignatures(): number {
    return Atomics.load(this.counters, 1);
  }
  setSecrets(secrets: string[]): void {
    this.post({ type: 'secrets', secrets });
  }
}

/** The same headers the delivery service sends (services/delivery README, "Headers"), computed per request. */
function signedHeaders(secret: string, eventType: string, envelopeId: string, body: Buffer): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  const key = Buffer.from(secret, 'base64');
  return {
    'content-type': 'application/json',
    'user-agent': 'Preflight-Webhooks/1.0',
    'x-service-event': eventType,
    'x-service-delivery': randomUUID(),
    'x-service-signature': `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')}`,
    'webhook-id': envelopeId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${createHmac('sha256', key).update(`${envelopeId}.${timestamp}.`).update(body).digest('base64')}`,
  };
}

export function issueCreated(orgId: string, campaignId: string, phase: string, seq: number) {
  return createEvent('IssueCreated', {
    issueId: randomUUID(),
    orgId,
    campaignId,
    seqNumber: seq,
    title: `bench:${phase}:${seq}:${nowNs()}`,
    severity: 'High',
    type: 'Bug',
    status: 'New',
    pageUrl: 'https://shop.example.com/checkout',
    reporter: 'API key bench',
    createdAt: toTimestamp(new Date()),
    revision: 1,
  });
}

export async function runDelivery(s: DeliverySettings, onCleanup: Cleanup): Promise<DeliveryReport> {
  const machine = machineFacts();
  const perEndpoint = Number(s.serviceEnv.DELIVERY_MAX_CONCURRENCY_PER_ENDPOINT ?? 4);
  const workers = Number(s.serviceEnv.DELIVERY_WORKERS ?? 64);
  /** In flight at most, every replica together; the bare loops use as many (`perEndpoint` × replicas connections per receiver). */
  const concurrency = s.deliveryReplicas * Math.min(workers, perEndpoint * s.endpoints);
  const connectionsPerEndpoint = s.deliveryReplicas * perEndpoint;

  const receivers = new Receivers();
  await receivers.start(s.endpoints, 1);
  onCleanup(() => receivers.close());
  const pauses = watchMachinePauses();
  onCleanup(async () => pauses.stop());

  // Registered after the receivers: undone first, but the receivers' close goes first.
  const sys: RunningSystem = await startBenchSystem({
    env: { LOG_LEVEL: s.logLevel, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ...s.serviceEnv },
    cpuProfDir: s.cpuProfDir,
    replicas: { delivery: s.deliveryReplicas },
    standIn: receivers,
    onCleanup,
    log,
  });
  const groups: CpuGroups = {
    delivery: sys.replicas.delivery.map((p) => p.child.pid ?? 0),
    webhook: [sys.processes.webhook.child.pid ?? 0],
    'other services': [sys.processes.gateway.child.pid ?? 0, sys.processes.issue.child.pid ?? 0, sys.processes.campaign.child.pid ?? 0],
    harness: [process.pid],
  };
  // Every service's processes, sampled every 250 ms: each phase reports the largest RSS it saw.
  const rss = rssSampler(() => Object.fromEntries(Object.entries(sys.replicas).map(([name, procs]) => [name, procs.map((p) => p.child.pid ?? 0)])));
  onCleanup(async () => rss.stop());

  const a = admin(sys);
  const org = await a.createOrg('Delivery bench');
  const orgId: string = org.id;
  const campaignId = randomUUID();
  const createWebhook = async (port: number, name: string) => {
    const res = await call(sys, 'POST', `/admin/v1/organizations/${orgId}/webhooks`, {
      token: sys.adminToken,
      body: { url: `http://127.0.0.1:${port}/hooks/${name}`, events: ['IssueCreated'], name },
    });
    if (res.status !== 201) throw new Error(`creating webhook ${name} → ${res.status} ${res.text}`);
    return res.body as { id: string; secret: string; url: string };
  };
  const hooks: Array<{ id: string; secret: string; url: string }> = [];
  for (let i = 0; i < s.endpoints; i++) hooks.push(await createWebhook(receivers.healthyPorts[i]!, `healthy-${i}`));
  receivers.setSecrets(hooks.map((h) => h.secret));
  log(`org ${orgId}, ${hooks.length} webhooks → 127.0.0.1:${receivers.healthyPorts.join(',')}`);

  const nc = await connectNats({ url: TEST_NATS_URL, name: 'bench-delivery-publisher', logger: createLogger('bench-delivery', { level: 'warn' }) });
  onCleanup(() => nc.close());
  const js: JetStreamClient = jetstream(nc);
  const prefix = sys.env.EVENTS_SUBJECT_PREFIX!;
  const publish = async (phase: string, seq: number): Promise<void> => {
    const enc = encodeEvent(issueCreated(orgId, campaignId, phase, seq), prefix);
    const h = headers();
    h.set(EVENT_TYPE_HEADER, enc.type);
    h.set(ORG_ID_HEADER, orgId);
    await js.publish(enc.subject, enc.payload, { msgID: randomUUID(), headers: h, timeout: 5_000 });
  };

  /** Every delivery replica's metrics: the pending rows and the consumer's lag are the same for all (the database's, the shared consumer's), attempts add up. */
  const scrape = async () => {
    try {
      const texts = await Promise.all(sys.replicas.delivery.map(async (p) => (await fetch(`${p.url}/metrics`)).text()));
      const sum = (name: string) => texts.reduce((acc, t) => acc + metricValue(t, name), 0);
      return {
        pending: Math.max(...texts.map((t) => metricValue(t, 'webhook_deliveries_pending'))),
        lag: Math.max(...texts.map((t) => metricValue(t, 'consumer_lag'))),
        attemptSeconds: sum('webhook_delivery_attempt_duration_seconds_sum'),
        attempts: sum('webhook_delivery_attempt_duration_seconds_count'),
      };
    } catch {
      return { pending: NaN, lag: NaN, attemptSeconds: NaN, attempts: NaN };
    }
  };

  async function vacuumTables(): Promise<void> {
    await vacuumSchemas(Object.values(sys.schemas));
    log("vacuumed and analysed every service's tables");
  }

  /**
   * Autovacuum and autoanalyze runs on the services' tables that finished after `since`, as
   * seconds from it: they stall every writer of those tables for a moment, so the timeline of
   * a run reads better beside them.
   */
  async function autovacuumsSince(since: number): Promise<string[]> {
    const { rows } = await withBenchClient((client) =>
      client.query<{ schemaname: string; relname: string; kind: string; at: Date }>(
        `select schemaname, relname, kind, at from pg_stat_user_tables,
           lateral (values ('autovacuum', last_autovacuum), ('autoanalyze', last_autoanalyze)) as v(kind, at)
         where schemaname = any($1) and at >= to_timestamp($2 / 1000.0) order by at`,
        [Object.values(sys.schemas), since],
      ),
    );
    return rows.map((r) => `${r.kind} ${r.relname} (${Object.entries(sys.schemas).find(([, v]) => v === r.schemaname)?.[0] ?? r.schemaname}) at ${((r.at.getTime() - since) / 1000).toFixed(1)} s`);
  }

  const quiesce = () => settleGroups(groups, log);
  /** Waits (bounded) until the receivers have seen `target` arrivals in all. */
  const waitArrivals = (target: number, timeoutS: number) => waitForCount(() => receivers.arrivals, target, timeoutS);

  // Smoke: one event reaches every receiver (also warms the fan-out and the scheduler).
  {
    const before = receivers.arrivals;
    await publish('smoke', 0);
    if (Number.isNaN(await waitArrivals(before + s.endpoints, 30))) throw new Error(`the smoke event did not reach all ${s.endpoints} receivers within 30 s`);
    await receivers.collect();
    log('smoke event delivered to every receiver');
  }

  async function latencyPhase(name: string, label: string, durationS = s.durationS): Promise<LatencyPhase> {
    const settledS = await quiesce();
    log(`${label}: ${s.rate} events/s × ${s.endpoints} endpoints, ${s.warmupS} s warm-up + ${durationS} s`);
    const warmupCount = Math.round(s.rate * s.warmupS);
    let seq = 0;
    let published = 0;
    const failedMeasured = new Set<number>();
    const bad0 = receivers.badSignatures;
    const start = receivers.arrivals;
    const meter = cpuMeter(groups);
    await meter.prepare();
    rss.take();
    const phaseStart = Date.now();
    const open = await openLoop(
      async () => {
        const n = seq++;
        try {
          await publish(name, n);
          published += 1;
        } catch (err) {
          if (n >= warmupCount) failedMeasured.add(n);
          throw err;
        }
      },
      {
        rate: s.rate,
        warmupS: s.warmupS,
        durationS,
        drainTimeoutS: 15,
        window: {
          start: () => meter.start(),
          stop: () => undefined,
        },
      },
    );
    // Where a backlog sits when publishing stops: in the stream (consumer lag) or in deliveries.
    const atEnd = await scrape();
    const arrivedAtEnd = receivers.arrivals - start;
    await waitArrivals(start + published * s.endpoints, s.drainTimeoutS);
    meter.stop();
    const rssMb = rss.take();
    log(`  when publishing stopped: ${published * s.endpoints - arrivedAtEnd} deliveries outstanding, ${atEnd.pending} pending rows, consumer lag ${atEnd.lag}`);
    const records = (await receivers.collect()).filter((r) => r.phase === name && r.seq >= warmupCount);
    const seen = new Set<string>();
    const all = new Samples();
    const perReceiver = Array.from({ length: s.endpoints }, () => new Samples());
    const buckets = Array.from({ length: Math.ceil(durationS / TIMELINE_BUCKET_S) }, () => new Samples());
    let duplicates = 0;
    for (const r of records) {
      const key = `${r.r}:${r.id}`;
      if (seen.has(key)) {
        duplicates += 1;
        continue;
      }
      seen.add(key);
      const ms = Number(BigInt(r.arrivedNs) - BigInt(r.publishedNs)) / 1e6;
      all.push(ms);
      perReceiver[r.r]!.push(ms);
      // Events are published at a fixed rate, so an event's number tells when it was published.
      bucketOf(buckets, r.seq, warmupCount, s.rate, TIMELINE_BUCKET_S).push(ms);
    }
    const measuredEvents = seq - warmupCount - failedMeasured.size;
    // The measured events' publishing, and the slowest delivery's time after the last of them.
    const windowFrom = phaseStart + s.warmupS * 1000;
    const latency = summarise(all.values());
    const worstReceiverP99 = Math.max(...perReceiver.map((p) => summarise(p.values()).p99).filter((v) => !Number.isNaN(v)));
    const phase: LatencyPhase = {
      name,
      label,
      open,
      latency,
      worstReceiverP99,
      expected: measuredEvents * s.endpoints,
      arrived: seen.size,
      duplicates,
      badSignatures: receivers.badSignatures - bad0,
      cpu: meter.usage,
      settledS,
      timeline: buckets.map((b) => {
        const sum = summarise(b.values());
        return { p99: sum.p99, max: sum.max };
      }),
      pauses: pauses.during(windowFrom, windowFrom + durationS * 1000 + latency.max),
      rssMb,
    };
    const vacuums = await autovacuumsSince(windowFrom);
    log(`  autovacuum during the run (last run per table, s from the measured window's start): ${vacuums.length > 0 ? vacuums.join(', ') : 'none'}`);
    log(`  p99 by ${TIMELINE_BUCKET_S} s of publishing: ${phase.timeline.map((t) => `${t.p99.toFixed(1)}`).join(' · ')} ms (max ${phase.timeline.map((t) => t.max.toFixed(0)).join(' · ')})`);
    log(`  machine pauses ≥ ${REPORTED_PAUSE_MS} ms (an idle process's timer): ${phase.pauses.count}${phase.pauses.count ? `, the longest ${phase.pauses.worstMs} ms` : ''}`);
    log(`  p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms, max ${latency.max.toFixed(1)} ms; ${phase.arrived}/${phase.expected} arrived${open.problems.length ? `; PROBLEMS: ${open.problems.join(', ')}` : ''}`);
    return phase;
  }

  async function sustainedPhase(): Promise<ThroughputPhase> {
    const settledS = await quiesce();
    const name = 'sustained';
    log(`sustained: publishing while fewer than ${s.feedWindow} deliveries are outstanding, ${s.tpWarmupS} s warm-up + ${s.tpDurationS} s`);
    const E = s.endpoints;
    const a0 = receivers.arrivals;
    const meter = cpuMeter(groups);
    await meter.prepare();
    rss.take();
    let metricsAtStart: ReturnType<typeof scrape> | undefined;
    const feed = await feedWindow({
      warmupS: s.tpWarmupS,
      durationS: s.tpDurationS,
      units: E,
      feedWindow: s.feedWindow,
      batch: 20,
      arrived: () => receivers.arrivals,
      room: (f) => f.inflight < 8,
      send: (seq) => publish(name, seq),
      onStart: () => {
        meter.start();
        metricsAtStart = scrape();
        cutProfiles(sys, s.cpuProfDir);
      },
    });
    const [aStart, pubStart, oStart] = [feed.start.arrived, feed.start.sent, feed.start.outstanding];
    const [aEnd, pubEnd, oEnd] = [feed.end.arrived, feed.end.sent, feed.end.outstanding];
    meter.stop();
    const rssMb = rss.take();
    cutProfiles(sys, s.cpuProfDir);
    const metrics = await scrape();
    const before = await metricsAtStart!;
    await feed.settled();
    const drainS = await waitArrivals(a0 + feed.state.done * E, s.drainTimeoutS);
    await receivers.collect();
    const windowS = s.tpDurationS;
    const o = summarise(feed.outstanding.values());
    const phase: ThroughputPhase = {
      name,
      label: `delivery service (fan-out, sign, POST, record), feed window ${s.feedWindow.toLocaleString('en-US')}`,
      concurrency,
      windowS,
      deliveredPerS: (aEnd - aStart) / windowS,
      offeredPerS: ((pubEnd - pubStart) * E) / windowS,
      outstandingStart: oStart,
      outstandingEnd: oEnd,
      outstandingMean: o.mean,
      outstandingMax: o.max,
      pendingRowsEnd: metrics.pending,
      consumerLagEnd: metrics.lag,
      attemptMeanMs: ((metrics.attemptSeconds - before.attemptSeconds) / (metrics.attempts - before.attempts)) * 1000,
      drainS,
      bounded: !Number.isNaN(drainS) && oEnd - oStart <= 0.1 * s.feedWindow,
      errors: feed.state.errors,
      cpu: meter.usage,
      settledS,
      rssMb,
    };
    log(`  ${Math.round(phase.deliveredPerS)}/s delivered (offered ${Math.round(phase.offeredPerS!)}/s), outstanding ${oStart} → ${oEnd}, pending rows ${metrics.pending}, consumer lag ${metrics.lag}, mean attempt ${phase.attemptMeanMs!.toFixed(2)} ms, drained in ${drainS.toFixed(1)} s`);
    return phase;
  }

  async function barePhase(keepAlive: boolean): Promise<ThroughputPhase> {
    const settledS = await quiesce();
    const name = keepAlive ? 'bare' : 'bare-noka';
    const label = keepAlive
      ? `bare undici POST loop, keep-alive (a Pool of ${connectionsPerEndpoint} per endpoint)`
      : 'bare undici POST loop, a new Agent per request (no keep-alive; the service reuses pinned keep-alive agents)';
    log(`${label}: ${concurrency} in flight, ${s.tpWarmupS} s warm-up + ${s.tpDurationS} s`);
    const E = s.endpoints;
    const pools = receivers.healthyPorts.map((p) => new Pool(`http://127.0.0.1:${p}`, { connections: connectionsPerEndpoint, pipelining: 1 }));
    const meter = cpuMeter(groups);
    await meter.prepare();
    let aStart = NaN;
    const { errors, latency: lat } = await bareLoop({
      warmupS: s.tpWarmupS,
      durationS: s.tpDurationS,
      concurrency,
      onStart: () => {
        meter.start();
        aStart = receivers.arrivals;
      },
      loop: (w, t) => {
        const i = w % E;
        const url = new URL(hooks[i]!.url);
        return async (seq) => {
          const eventId = randomUUID();
          const env = envelopesFor(eventId, issueCreated(orgId, campaignId, name, seq))[0]!;
          const body = Buffer.from(JSON.stringify(env), 'utf8');
          const h = signedHeaders(hooks[i]!.secret, env.eventType, eventId, body);
          const sent = performance.now();
          let agent: Agent | undefined;
          try {
            if (keepAlive) {
              const res = await pools[i]!.request({ path: url.pathname, method: 'POST', headers: h, body });
              await res.body.dump();
              if (res.statusCode !== 204) t.error();
            } else {
              agent = new Agent({ pipelining: 0 });
              const res = await request(url, { method: 'POST', headers: h, body, dispatcher: agent });
              await res.body.dump();
              if (res.statusCode !== 204) t.error();
            }
            t.record(sent);
          } finally {
            if (agent) void agent.destroy().catch(() => undefined);
          }
        };
      },
    });
    const aEnd = receivers.arrivals;
    meter.stop();
    await Promise.all(pools.map((p) => p.close()));
    await receivers.collect();
    const phase: ThroughputPhase = {
      name,
      label,
      concurrency,
      windowS: s.tpDurationS,
      deliveredPerS: (aEnd - aStart) / s.tpDurationS,
      latency: summarise(lat.values()),
      errors,
      cpu: meter.usage,
      settledS,
    };
    log(`  ${Math.round(phase.deliveredPerS)}/s at the receivers, p99 ${phase.latency!.p99.toFixed(2)} ms, ${errors} errors`);
    return phase;
  }

  const latency: LatencyPhase[] = [];
  const throughput: ThroughputPhase[] = [];
  // Unmeasured: services just started run at about half speed for several seconds (code not
  // yet optimised, caches and connections empty), and at this load the backlog of those
  // seconds outlasted any warm-up of run 1. Run 1 then measures working processes, as the
  // later runs do.
  await latencyPhase('warm', 'warm-up run (not reported)');
  latency.push(await latencyPhase('healthy', `${s.endpoints} healthy endpoints`));
  throughput.push(await sustainedPhase());
  throughput.push(await barePhase(true));
  throughput.push(await barePhase(false));
  // The runs compared for the hanging endpoint start from the same table state: the phases
  // before leave tens of thousands of dead row versions, and autovacuum would otherwise clean
  // them up at a moment of its choosing, inside whichever window it happens to fall.
  await vacuumTables();
  latency.push(await latencyPhase('control', `${s.endpoints} healthy endpoints again (control, just before the hanging run)`, s.compareDurationS));
  await vacuumTables();
  const hang = await createWebhook(receivers.hangingPorts[0]!, 'hanging');
  log(`added webhook ${hang.id} → a receiver that never answers`);
  const hangAddedAt = Date.now();
  latency.push(await latencyPhase('hanging', `${s.endpoints} healthy endpoints + 1 hanging endpoint`, s.compareDurationS));
  // When the webhook service disabled the hanging endpoint (5 failed deliveries), if it did:
  // from then on the delivery service cancels its whole backlog, which the timeline may show.
  const listed = await call(sys, 'GET', `/admin/v1/organizations/${orgId}/webhooks`, { token: sys.adminToken });
  const hangState = (listed.body as Array<{ id: string; consecutiveFailures: number; disabledAt: string | null }>).find((w) => w.id === hang.id);
  const measuredFrom = hangAddedAt + (latency.at(-1)!.settledS + s.warmupS) * 1000;
  log(
    `  hanging endpoint after the run: ${hangState?.consecutiveFailures ?? '?'} consecutive failed deliveries, ` +
      (hangState?.disabledAt ? `disabled ${((Date.parse(hangState.disabledAt) - measuredFrom) / 1000).toFixed(1)} s into the measured window` : 'not disabled'),
  );

  const [healthy, control, hanging] = latency as [LatencyPhase, LatencyPhase, LatencyPhase];
  const [sustained, bare] = throughput as [ThroughputPhase, ThroughputPhase, ThroughputPhase];
  const fmt = (v: number) => `${v.toFixed(1)} ms`;
  const checks: Check[] = [
    {
      target: `event-to-receiver p99 ≤ 100 ms at ${s.rate * s.endpoints} deliveries/s`,
      measured: fmt(healthy.latency.p99),
      threshold: '≤ 100 ms',
      ratio: `${(healthy.latency.p99 / 100).toFixed(2)}× of the limit`,
      pass: healthy.latency.p99 <= 100 && healthy.arrived >= healthy.expected,
    },
    {
      target: 'sustained deliveries/s ≥ 1,500 (backlog bounded)',
      measured: `${Math.round(sustained.deliveredPerS)}/s${sustained.bounded ? '' : ', backlog NOT bounded'}`,
      threshold: '≥ 1,500/s',
      ratio: `${(sustained.deliveredPerS / 1500).toFixed(2)}× of the target`,
      pass: sustained.deliveredPerS >= 1500 && sustained.bounded === true,
    },
    {
      target: 'sustained ≥ 0.4× the bare keep-alive loop',
      measured: `${Math.round(sustained.deliveredPerS)}/s vs ${Math.round(bare.deliveredPerS)}/s`,
      threshold: '≥ 0.40×',
      ratio: `${ratio(sustained.deliveredPerS, bare.deliveredPerS).toFixed(2)}×`,
      pass: ratio(sustained.deliveredPerS, bare.deliveredPerS) >= 0.4,
    },
    {
      // Like against like: both runs last compareDurationS and start right after a VACUUM.
      target: `healthy p99 beside a hanging endpoint ≤ 1.2× without (the control run; both ${s.compareDurationS} s)`,
      measured: `${fmt(hanging.latency.p99)} vs ${fmt(control.latency.p99)} (run 1, ${s.durationS} s: ${fmt(healthy.latency.p99)})`,
      threshold: '≤ 1.20×',
      ratio: `${ratio(hanging.latency.p99, control.latency.p99).toFixed(2)}×`,
      pass: ratio(hanging.latency.p99, control.latency.p99) <= 1.2 && hanging.arrived >= hanging.expected,
    },
  ];
  // Each as --service-env set it, else the service's default.
  const serviceSettings = serviceSettingsOf(s, {
    'delivery replicas': String(s.deliveryReplicas),
    DELIVERY_MAX_CONCURRENCY_PER_ENDPOINT: String(perEndpoint),
    DELIVERY_WORKERS: String(workers),
    DB_POOL_MAX: '10',
    DELIVERY_ATTEMPT_TIMEOUT_MS: '10000',
    DELIVERY_RETRY_SCHEDULE_MS: '1000,5000',
    DELIVERY_FANOUT_GATHER_MS: '25',
    DELIVERY_ENDPOINT_CACHE_TTL_MS: '2000',
  });
  return { settings: s, machine, loadAtEnd: machineFacts().loadAverage, serviceSettings, latency, throughput, checks };
}
