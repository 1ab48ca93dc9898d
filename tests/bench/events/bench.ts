import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/nats-core';
import { Registry } from 'prom-client';
import { EVENT_TYPE_HEADER, ORG_ID_HEADER, connectNats, enqueueEvent, newEventId, ensureStream, inboxMigration, outboxMigration, startConsumer, startOutboxRelay, type OutboxRelay, type RunningConsumer } from '@preflight/bus';
import { createDatabase, migrateToLatest, sql, type Database } from '@preflight/db';
import { createEvent, encodeEvent, toTimestamp, type EncodedEvent } from '@preflight/events';
import { createLogger } from '@preflight/log';
import { TEST_DATABASE_URL, TEST_NATS_URL, deleteStreams, dropSchemas, isolatedName } from '@preflight/testing';
import { opThroughput, type ThroughputResult } from '../lib/closed-loop.ts';
import { coresTakenFromRun, cpuMeter, settle, type CpuGroups, type CpuUsage } from '../lib/cpu.ts';
import { machineFacts, type MachineFacts } from '../lib/machine.ts';
import { openLoop, type OpenLoopResult } from '../lib/open-loop.ts';
import { Samples, summarise, type LatencySummary } from '../lib/stats.ts';
import { relayProbe, type RelayCycle, type RelayProbe } from './probe.ts';
import { postgresVersion } from '../lib/postgres.ts';

/**
 * The events benchmark: domain events through the transactional outbox (libs/bus) beside a
 * bare JetStream publish. Everything runs in this process (producers, the real relay, the real
 * consumers), so commit, publish and receive times share one clock. See docs/benchmarks.md.
 */
export interface EventsSettings {
  /** Open loop: events/s, warm-up and measured seconds. */
  rate: number;
  warmupS: number;
  durationS: number;
  /**
   * Closed loop: concurrent writers (outbox) and in-flight publishes (bare). 16 writers, as two
   * replicas of a writing service would have: 8 were bound by commit latency (each writer
   * waits for its WAL flush), not by the outbox, and left a quarter of the CPU idle.
   */
  writers: number;
  barePublishWindow: number;
  tpWarmupS: number;
  tpDurationS: number;
  /** Relay: rows per claim (its default); producer pool (room for every writer and the relay). */
  batchSize: number;
  producerPoolMax: number;
  consumerPoolMax: number;
  consumerConcurrency: number;
  /** Most events per consumer transaction (startConsumer's batchSize). */
  consumerBatchSize: number;
  /** Relay capacity: rows put in the outbox before the relay starts (concurrent acks, serial emulation). */
  capacityRows: number;
  serialRows: number;
  /** Bounded waits for stragglers after a phase. */
  drainTimeoutS: number;
  /** The relay "kept up" when its backlog grew by less than this share of the commit rate. */
  keptUpSlope: number;
}

export const DEFAULT_EVENTS_SETTINGS: EventsSettings = {
  rate: 200,
  warmupS: 2,
  durationS: 10,
  writers: 16,
  barePublishWindow: 256,
  tpWarmupS: 2,
  tpDurationS: 10,
  batchSize: 100,
  producerPoolMax: 20,
  consumerPoolMax: 10,
  consumerConcurrency: 8,
  consumerBatchSize: 32,
  capacityRows: 20_000,
  serialRows: 5_000,
  drainTimeoutS: 30,
  keptUpSlope: 0.02,
};

export const QUICK_EVENTS_SETTINGS: Partial<EventsSettings> = {
  warmupS: 0.5,
  durationS: 3,
  tpWarmupS: 0.5,
  tpDurationS: 3,
  capacityRows: 4_000,
  serialRows: 1_000,
  drainTimeoutS: 15,
};

export interface LatencyPhase {
  path: 'outbox' | 'bare';
  open: OpenLoopResult;
  /** Headline: commit (outbox) or publish call (bare) → consumer handler start. */
  e2e: LatencySummary;
  /** Producer's send (open-loop op start) → handler start. */
  sendToHandler: LatencySummary;
  /** Outbox only: commit → relay's publish call; relay publish call → PubAck; publish call → handler. */
  pickup?: LatencySummary;
  pubAck: LatencySummary;
  publishToHandler?: LatencySummary;
  measured: number;
  received: number;
  cpu: CpuUsage | undefined;
}

export interface ThroughputPhase {
  path: 'outbox' | 'bare';
  /** False for the diagnostic run without a consumer (the relay alone behind the writers). */
  withConsumer: boolean;
  /**
   * The diagnostic run as the bus worked before: the relay not told the writers' pool (so
   * enqueueEvent sends its NOTIFY in the writer's transaction) and one consumer transaction per event.
   */
  former: boolean;
  closed: ThroughputResult;
  windowS: number;
  committedPerS: number;
  publishedPerS: number;
  consumedPerS: number;
  /** Outbox rows committed and not yet published (outbox), at the window's start and end, and its slope (events/s) over the window. */
  relayBacklogStart: number;
  relayBacklogEnd: number;
  relayBacklogSlope: number;
  /** Published and not yet consumed. */
  consumerBacklogEnd: number;
  /** Consumer transactions committed per second in the window, and events per transaction. */
  consumerTxPerS: number;
  consumerBatchMean: number;
  consumerBacklogSlope: number;
  /** After the window: seconds until the relay's backlog was gone (outbox), NaN if not within the drain timeout. */
  relayDrainS: number;
  keptUp: boolean;
  /** The rate the relay kept up with: committed/s when it kept up, else published/s. */
  sustained: number;
  cycles: CycleSummary | undefined;
  cpu: CpuUsage | undefined;
}

export interface CycleSummary {
  cycles: number;
  fullCycles: number;
  rowsPerCycle: number;
  /** Means over full cycles (rows = batchSize); all cycles when none was full. */
  beginMs: number;
  claimMs: number;
  publishMs: number;
  markMs: number;
  commitMs: number;
  totalMs: number;
  /** Between one commit and the next begin (loop, pool wait, gauges). */
  gapMs: number;
  publishP99Ms: number;
}

export interface CapacityPhase {
  mode: 'concurrent' | 'serial';
  rows: number;
  published: number;
  seconds: number;
  rate: number;
  finished: boolean;
  cycles: CycleSummary | undefined;
  cpu: CpuUsage | undefined;
}

/** Writers only (no relay, no consumer): what the producer's transaction can commit, with NOTIFY where enqueueEvent puts it and without. */
export interface CeilingPhase {
  variant: 'enqueueEvent' | 'no-notify' | 'notify-after-commit';
  closed: ThroughputResult;
  cpu: CpuUsage | undefined;
}

export interface EventsReport {
  settings: EventsSettings;
  machine: MachineFacts;
  postgres: string;
  nats: string;
  eventBytes: number;
  loadAtEnd: [number, number, number];
  latency: LatencyPhase[];
  throughput: ThroughputPhase[];
  capacity: CapacityPhase[];
  ceiling: CeilingPhase[];
  checks: EventsCheck[];
}

export interface EventsCheck {
  target: string;
  measured: string;
  baseline: string;
  ratio: number;
  threshold: string;
  pass: boolean;
  othersCores: number;
}

export type Cleanup = (fn: () => Promise<unknown>) => void;

const log = (msg: string) => process.stderr.write(`[bench:events] ${msg}\n`);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const logger = createLogger('bench-events', { level: 'warn' });

/** Waits until `done()` or the timeout; returns whether it happened. */
async function waitFor(done: () => boolean | Promise<boolean>, timeoutS: number, stepMs = 20): Promise<boolean> {
  const until = performance.now() + timeoutS * 1000;
  while (performance.now() < until) {
    if (await done()) return true;
    await sleep(stepMs);
  }
  return done();
}

function summariseCycles(cycles: RelayCycle[], batchSize: number): CycleSummary | undefined {
  if (cycles.length === 0) return undefined;
  const full = cycles.filter((c) => c.rows >= batchSize);
  const use = full.length ? full : cycles.filter((c) => c.rows > 0);
  if (use.length === 0) return undefined;
  const mean = (f: (c: RelayCycle) => number) => use.reduce((a, c) => a + (Number.isFinite(f(c)) ? f(c) : 0), 0) / use.length;
  const gaps = new Samples();
  for (let i = 1; i < cycles.length; i++) {
    const prev = cycles[i - 1]!;
    if (prev.rows >= batchSize) gaps.push(cycles[i]!.startAt - (prev.startAt + prev.totalMs));
  }
  const g = gaps.values();
  return {
    cycles: cycles.length,
    fullCycles: full.length,
    rowsPerCycle: cycles.reduce((a, c) => a + c.rows, 0) / cycles.length,
    beginMs: mean((c) => c.beginMs),
    claimMs: mean((c) => c.claimMs),
    publishMs: mean((c) => c.publishMs),
    markMs: mean((c) => c.markMs),
    commitMs: mean((c) => c.commitMs),
    totalMs: mean((c) => c.totalMs),
    gapMs: g.length ? g.reduce((a, b) => a + b, 0) / g.length : NaN,
    publishP99Ms: summarise(Float64Array.from(use.map((c) => c.publishMs))).p99,
  };
}

/** Least-squares slope of (t seconds, value) samples. */
function slope(points: Array<[number, number]>): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const mx = points.reduce((a, p) => a + p[0], 0) / n;
  const my = points.reduce((a, p) => a + p[1], 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den > 0 ? num / den : 0;
}

interface Env {
  s: EventsSettings;
  producer: Database<any>;
  consumerDb: Database<any>;
  /** The producing side's connection (relay, bare publisher); the consuming side has its own. */
  pubNc: NatsConnection;
  pubJs: JetStreamClient;
  subJs: JetStreamClient;
  subJsm: JetStreamManager;
  stream: string;
  prefix: string;
  groups: CpuGroups;
  orgId: string;
  onCleanup: Cleanup;
}

/** A durable consumer over `<prefix>.<token>.>` counting (and, when asked, timing) handler starts. */
async function counter(env: Env, token: string, timeIds: boolean, batchSize = env.s.consumerBatchSize) {
  const receivedAt = new Map<string, number>();
  let count = 0;
  let stopped = false;
  const registry = new Registry();
  const consumer: RunningConsumer = await startConsumer({
    js: env.subJs,
    jsm: env.subJsm,
    stream: env.stream,
    durable: token,
    filterSubjects: [`${env.prefix}.${token}.>`],
    db: env.consumerDb.db,
    schema: env.consumerDb.schema,
    logger,
    registry,
    concurrency: env.s.consumerConcurrency,
    batchSize,
    handler: async (event) => {
      const t = performance.now();
      count += 1;
      if (timeIds && !receivedAt.has(event.id)) receivedAt.set(event.id, t);
    },
  });
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await consumer.stop();
  };
  env.onCleanup(stop);
  /** Committed consumer transactions and the events in them, so far. */
  const transactions = async () => {
    const values = (await registry.getSingleMetric('consumer_batch_size')?.get())?.values ?? [];
    const of = (name: string) => values.find((v) => (v as { metricName?: string }).metricName === name)?.value ?? 0;
    return { tx: of('consumer_batch_size_count'), events: of('consumer_batch_size_sum') };
  };
  return {
    receivedAt,
    get count() {
      return count;
    },
    transactions,
    stop,
  };
}

/** `former`: LISTEN on a connection of its own and not the writers' pool, so writers NOTIFY in their transactions as before. */
function startRelay(env: Env, probe: RelayProbe, former = false): OutboxRelay {
  const relay = startOutboxRelay({
    db: probe.db,
    ...(former ? { url: TEST_DATABASE_URL } : { pool: env.producer.pool }),
    schema: env.producer.schema,
    js: probe.js,
    logger,
    registry: new Registry(),
    batchSize: env.s.batchSize,
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await relay.stop();
  };
  env.onCleanup(stop);
  return { wake: () => relay.wake(), stop };
}

function statusChanged(prefix: string): EncodedEvent {
  return encodeEvent(
    createEvent('IssueStatusChanged', {
      issueId: randomUUID(),
      orgId: randomUUID(),
      campaignId: randomUUID(),
      title: 'Checkout button does nothing on Safari 17',
      severity: 'High',
      oldStatus: 'New',
      newStatus: 'InProgress',
      reason: 'Triaged by the benchmark',
      occurredAt: toTimestamp(new Date()),
      revision: 2,
    }),
    prefix,
  );
}

/** One producer transaction: a small state row and the event, committed together. */
function committer(env: Env, event: EncodedEvent) {
  const issueId = randomUUID();
  return async (id: string) => {
    await env.producer.db.transaction().execute(async (trx) => {
      await sql`insert into bench_state (issue_id, status) values (${issueId}, 'InProgress')`.execute(trx);
      await enqueueEvent(trx, { ...event, id, orgId: env.orgId });
    });
  };
}

function barePublisher(env: Env, event: EncodedEvent) {
  return (id: string) => {
    const h = headers();
    h.set(EVENT_TYPE_HEADER, event.type);
    h.set(ORG_ID_HEADER, env.orgId);
    return env.pubJs.publish(event.subject, event.payload, { msgID: id, headers: h, timeout: 5_000 });
  };
}

async function quiesce(env: Env): Promise<void> {
  const r = await settle(env.groups, { maxS: 30 });
  if (r.waitedS > 3) log(`  waited ${r.waitedS.toFixed(0)} s for the system to go idle${r.settled ? '' : ' (it did not; measuring anyway)'}`);
}

async function latencyPhase(env: Env, path: 'outbox' | 'bare'): Promise<LatencyPhase> {
  const s = env.s;
  const token = `lat_${path}`;
  const event = statusChanged(`${env.prefix}.${token}`);
  const consumer = await counter(env, token, true);
  const probe = relayProbe(env.pubJs, env.producer.pool);
  probe.trackIds = true;
  const relay = path === 'outbox' ? startRelay(env, probe) : undefined;
  const commit = committer(env, event);
  const publish = barePublisher(env, event);
  const warmupCount = Math.round(s.rate * s.warmupS);
  const total = warmupCount + Math.round(s.rate * s.durationS);
  const ids: string[] = new Array(total);
  const sentAt = new Float64Array(total);
  const doneAt = new Float64Array(total).fill(NaN);
  const ackAt = new Float64Array(total).fill(NaN);
  let calls = 0;
  const op = async () => {
    const i = calls++;
    const id = newEventId();
    ids[i] = id;
    sentAt[i] = performance.now();
    if (path === 'outbox') await commit(id);
    else {
      await publish(id);
      ackAt[i] = performance.now();
    }
    doneAt[i] = performance.now();
  };
  // Both paths once before the clock starts (connections, consumer, relay's LISTEN).
  await quiesce(env);
  log(`latency, ${path}: open loop at ${s.rate}/s, ${s.warmupS} s warm-up + ${s.durationS} s`);
  const cpu = cpuMeter(env.groups);
  await cpu.prepare();
  const open = await openLoop(op, { rate: s.rate, warmupS: s.warmupS, durationS: s.durationS, window: cpu });
  const measuredIds = ids.slice(warmupCount).filter((id, k) => id !== undefined && Number.isFinite(doneAt[warmupCount + k]!));
  await waitFor(() => measuredIds.every((id) => consumer.receivedAt.has(id)), s.drainTimeoutS);
  await relay?.stop();
  await consumer.stop();

  const e2e = new Samples();
  const sendToHandler = new Samples();
  const pickup = new Samples();
  const pubAck = new Samples();
  const publishToHandler = new Samples();
  let received = 0;
  for (let i = warmupCount; i < calls; i++) {
    const id = ids[i]!;
    const recv = consumer.receivedAt.get(id);
    if (path === 'bare' && Number.isFinite(ackAt[i]!)) pubAck.push(ackAt[i]! - sentAt[i]!);
    if (path === 'outbox') {
      const pub = probe.publishedAt.get(id);
      const ack = probe.ackedAt.get(id);
      if (pub !== undefined && Number.isFinite(doneAt[i]!)) pickup.push(pub - doneAt[i]!);
      if (pub !== undefined && ack !== undefined) pubAck.push(ack - pub);
      if (pub !== undefined && recv !== undefined) publishToHandler.push(recv - pub);
    }
    if (recv === undefined || !Number.isFinite(doneAt[i]!)) continue;
    received += 1;
    // Outbox: from the producer's commit; bare: from the publish call (the op's start).
    e2e.push(recv - (path === 'outbox' ? doneAt[i]! : sentAt[i]!));
    sendToHandler.push(recv - sentAt[i]!);
  }
  const r: LatencyPhase = {
    path,
    open,
    e2e: summarise(e2e.values()),
    sendToHandler: summarise(sendToHandler.values()),
    pubAck: summarise(pubAck.values()),
    measured: calls - warmupCount,
    received,
    cpu: cpu.usage,
  };
  if (path === 'outbox') {
    r.pickup = summarise(pickup.values());
    r.publishToHandler = summarise(publishToHandler.values());
  }
  log(`  ${path}: p50 ${r.e2e.p50.toFixed(2)} ms, p99 ${r.e2e.p99.toFixed(2)} ms to the handler (${received} of ${r.measured} received)${open.problems.length ? `  PROBLEMS: ${open.problems.join(', ')}` : ''}`);
  return r;
}

async function throughputPhase(env: Env, path: 'outbox' | 'bare', withConsumer = true, former = false): Promise<ThroughputPhase> {
  const s = env.s;
  const token = `tp_${path}${withConsumer ? '' : '_alone'}${former ? '_former' : ''}`;
  const event = statusChanged(`${env.prefix}.${token}`);
  const consumer = withConsumer ? await counter(env, token, false, former ? 1 : s.consumerBatchSize) : { count: 0, stop: async () => undefined, transactions: async () => ({ tx: 0, events: 0 }) };
  const probe = relayProbe(env.pubJs, env.producer.pool);
  const relay = path === 'outbox' ? startRelay(env, probe, former) : undefined;
  const commit = committer(env, event);
  const publish = barePublisher(env, event);
  let committed = 0;
  let barePublished = 0;
  const op =
    path === 'outbox'
      ? async () => {
          await commit(newEventId());
          committed += 1;
        }
      : async () => {
          await publish(newEventId());
          barePublished += 1;
        };
  const published = () => (path === 'outbox' ? probe.acked : barePublished);
  // Backlogs from the counters (relay: committed − acked; consumer: published − handled), every 250 ms.
  const relayPts: Array<[number, number]> = [];
  const consumerPts: Array<[number, number]> = [];
  let sampler: NodeJS.Timeout | undefined;
  let t0 = NaN;
  let t1 = NaN;
  const snap = { start: { c: 0, p: 0, h: 0, cycles: 0 }, end: { c: 0, p: 0, h: 0, cycles: 0 } };
  const take = () => ({ c: committed, p: published(), h: consumer.count, cycles: probe.cycles.length });
  const sample = () => {
    const t = (performance.now() - t0) / 1000;
    if (path === 'outbox') relayPts.push([t, committed - probe.acked]);
    consumerPts.push([t, published() - consumer.count]);
  };
  const cpu = cpuMeter(env.groups);
  const window = {
    prepare: () => cpu.prepare(),
    start: () => {
      t0 = performance.now();
      snap.start = take();
      cpu.start();
      sample();
      sampler = setInterval(sample, 250);
    },
    stop: () => {
      t1 = performance.now();
      snap.end = take();
      cpu.stop();
      clearInterval(sampler);
      sample();
    },
  };
  await quiesce(env);
  const width = path === 'outbox' ? s.writers : s.barePublishWindow;
  log(`throughput, ${path}${withConsumer ? '' : ' without a consumer'}${former ? ' as before (NOTIFY in the writer transaction, consumer batch 1)' : ''}: ${width} ${path === 'outbox' ? 'writers' : 'publishes in flight'}, ${s.tpWarmupS} s warm-up + ${s.tpDurationS} s`);
  // The consumer's transaction counts at the window's edges (read when the window opens and closes).
  let txStart: Promise<{ tx: number; events: number }> = Promise.resolve({ tx: 0, events: 0 });
  let txStop: Promise<{ tx: number; events: number }> = txStart;
  const [openWindow, closeWindow] = [window.start, window.stop];
  window.start = () => {
    openWindow();
    txStart = consumer.transactions();
  };
  window.stop = () => {
    closeWindow();
    txStop = consumer.transactions();
  };
  const closed = await opThroughput(op, { workers: width, warmupS: s.tpWarmupS, durationS: s.tpDurationS, window });
  const [txBegin, txEnd] = [await txStart, await txStop];
  const windowS = (t1 - t0) / 1000;
  const committedPerS = path === 'outbox' ? (snap.end.c - snap.start.c) / windowS : NaN;
  const publishedPerS = (snap.end.p - snap.start.p) / windowS;
  const consumedPerS = (snap.end.h - snap.start.h) / windowS;
  const relayBacklogStart = path === 'outbox' ? snap.start.c - snap.start.p : 0;
  const relayBacklogEnd = path === 'outbox' ? snap.end.c - snap.end.p : 0;
  const relayBacklogSlope = path === 'outbox' ? slope(relayPts) : 0;
  const consumerBacklogSlope = slope(consumerPts);
  const consumerBacklogEnd = snap.end.p - snap.end.h;
  let relayDrainS = 0;
  if (relay) {
    const from = performance.now();
    const drained = await waitFor(() => probe.acked >= committed, s.drainTimeoutS);
    relayDrainS = drained ? (performance.now() - from) / 1000 : NaN;
    // The database's own count, to be sure the counters told the truth.
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from outbox where published_at is null`.execute(env.producer.db);
    if (drained && (rows[0]?.n ?? 0) > 0) await waitFor(async () => ((await sql<{ n: number }>`select count(*)::int as n from outbox where published_at is null`.execute(env.producer.db)).rows[0]?.n ?? 0) === 0, 5, 100);
  }
  // The consumer is not waited for: its backlog at the end is reported; what it left is purged.
  await relay?.stop();
  await consumer.stop();
  await env.subJsm.streams.purge(env.stream, { filter: event.subject }).catch(() => undefined);
  const cycles = summariseCycles(probe.cycles.slice(snap.start.cycles, snap.end.cycles), s.batchSize);
  // Kept up: the backlog did not grow by more than keptUpSlope × the commit rate, and ended below one batch per writer plus a second of commits.
  const keptUp = path === 'outbox' ? relayBacklogSlope <= s.keptUpSlope * committedPerS && relayBacklogEnd <= committedPerS + s.batchSize * s.writers : true;
  const r: ThroughputPhase = {
    path,
    withConsumer,
    former,
    closed,
    windowS,
    committedPerS,
    publishedPerS,
    consumedPerS,
    relayBacklogStart,
    relayBacklogEnd,
    relayBacklogSlope,
    consumerBacklogEnd,
    consumerBacklogSlope,
    consumerTxPerS: (txEnd.tx - txBegin.tx) / windowS,
    consumerBatchMean: txEnd.tx > txBegin.tx ? (txEnd.events - txBegin.events) / (txEnd.tx - txBegin.tx) : NaN,
    relayDrainS,
    keptUp,
    sustained: path === 'outbox' ? (keptUp ? committedPerS : publishedPerS) : publishedPerS,
    cycles,
    cpu: cpu.usage,
  };
  log(
    `  ${path}${withConsumer ? '' : ' (no consumer)'}${former ? ' (as before)' : ''}: ${path === 'outbox' ? `committed ${Math.round(committedPerS)}/s, ` : ''}published ${Math.round(publishedPerS)}/s, consumed ${Math.round(consumedPerS)}/s; relay backlog ${relayBacklogStart} → ${relayBacklogEnd} (slope ${relayBacklogSlope.toFixed(0)}/s)${withConsumer ? `, consumer backlog ${consumerBacklogEnd}, ${Math.round(r.consumerTxPerS)} consumer tx/s of ${r.consumerBatchMean.toFixed(1)} events` : ''}${closed.problems.length ? `  PROBLEMS: ${closed.problems.join(', ')}` : ''}`,
  );
  return r;
}

async function ceilingPhase(env: Env, variant: CeilingPhase['variant']): Promise<CeilingPhase> {
  const s = env.s;
  const event = statusChanged(`${env.prefix}.ceiling`);
  const payload = Buffer.from(event.payload.buffer, event.payload.byteOffset, event.payload.byteLength);
  const issueId = randomUUID();
  const db = env.producer.db;
  const op =
    variant === 'enqueueEvent'
      ? () => committer(env, event)(newEventId())
      : async () => {
          // enqueueEvent's insert, without its pg_notify inside the transaction.
          await db.transaction().execute(async (trx) => {
            await sql`insert into bench_state (issue_id, status) values (${issueId}, 'InProgress')`.execute(trx);
            await sql`insert into outbox (id, subject, type, payload, org_id) values (${newEventId()}, ${event.subject}, ${event.type}, ${payload}, ${env.orgId})`.execute(trx);
          });
          if (variant === 'notify-after-commit') await sql`select pg_notify(current_schema() || '_outbox', '')`.execute(db);
        };
  await quiesce(env);
  log(`commit ceiling, ${variant}: ${s.writers} writers, no relay, ${s.tpWarmupS} s warm-up + ${s.tpDurationS} s`);
  const cpu = cpuMeter(env.groups);
  const closed = await opThroughput(op, { workers: s.writers, warmupS: s.tpWarmupS, durationS: s.tpDurationS, window: cpu });
  log(`  ${variant}: ${Math.round(closed.rps)} commits/s, p50 ${closed.latency.p50.toFixed(2)} ms, p99 ${closed.latency.p99.toFixed(2)} ms`);
  return { variant, closed, cpu: cpu.usage };
}

/** The relay alone on a pre-filled outbox: how fast it can publish, with concurrent acks and with serial acks emulated. */
async function capacityPhase(env: Env, mode: 'concurrent' | 'serial', rows: number): Promise<CapacityPhase> {
  const event = statusChanged(`${env.prefix}.cap_${mode}`);
  const payload = Buffer.from(event.payload.buffer, event.payload.byteOffset, event.payload.byteLength);
  // Nothing left over from an earlier phase may count here.
  await sql`update outbox set published_at = now() where published_at is null`.execute(env.producer.db);
  await sql`
    insert into outbox (id, subject, type, payload, org_id)
    select gen_random_uuid(), ${event.subject}, ${event.type}, ${payload}, ${env.orgId}::uuid from generate_series(1, ${rows})`.execute(env.producer.db);
  await sql`analyze outbox`.execute(env.producer.db);
  await quiesce(env);
  log(`relay capacity, ${mode} acks: ${rows} rows waiting, relay started`);
  const probe = relayProbe(env.pubJs, env.producer.pool);
  probe.serial = mode === 'serial';
  const cpu = cpuMeter(env.groups);
  await cpu.prepare();
  cpu.start();
  const relay = startRelay(env, probe);
  const finished = await waitFor(() => probe.acked >= rows, env.s.drainTimeoutS * 2, 10);
  cpu.stop();
  const end = finished ? probe.lastAckAt : performance.now();
  await relay.stop();
  // Leave nothing for the next phase (a serial run cut short).
  await sql`update outbox set published_at = now() where published_at is null`.execute(env.producer.db);
  const seconds = (end - probe.firstCallAt) / 1000;
  const r: CapacityPhase = {
    mode,
    rows,
    published: probe.acked,
    seconds,
    rate: probe.acked / seconds,
    finished,
    cycles: summariseCycles(probe.cycles, env.s.batchSize),
    cpu: cpu.usage,
  };
  log(`  ${mode}: ${probe.acked} published in ${seconds.toFixed(2)} s = ${Math.round(r.rate)}/s${finished ? '' : ' (cut short)'}; mean cycle ${r.cycles?.totalMs.toFixed(1)} ms (publish→last ack ${r.cycles?.publishMs.toFixed(1)} ms)`);
  return r;
}


function checksOf(latency: LatencyPhase[], throughput: ThroughputPhase[], s: EventsSettings): EventsCheck[] {
  const checks: EventsCheck[] = [];
  const lo = latency.find((l) => l.path === 'outbox');
  const lb = latency.find((l) => l.path === 'bare');
  if (lo) {
    checks.push({
      target: `Commit → consumer p99 at ${s.rate} events/s through the outbox`,
      measured: `${lo.e2e.p99.toFixed(2)} ms`,
      baseline: lb ? `${lb.e2e.p99.toFixed(2)} ms (bare publish → consumer)` : '–',
      ratio: lb ? lo.e2e.p99 / lb.e2e.p99 : NaN,
      threshold: '≤ 25 ms',
      pass: lo.e2e.p99 <= 25 && lo.received === lo.measured && lo.open.failed === 0,
      othersCores: coresTakenFromRun(lo.cpu),
    });
  }
  const to = throughput.find((t) => t.path === 'outbox' && t.withConsumer && !t.former);
  const tb = throughput.find((t) => t.path === 'bare');
  if (to) {
    checks.push({
      target: `Sustained event rate through the outbox (${s.writers} writers; relay keeps up)`,
      measured: `${Math.round(to.sustained).toLocaleString('en-US')}/s${to.keptUp ? '' : ' (relay fell behind)'}`,
      baseline: tb ? `${Math.round(tb.publishedPerS).toLocaleString('en-US')}/s (bare publish, ${s.barePublishWindow} in flight)` : '–',
      ratio: tb ? to.sustained / tb.publishedPerS : NaN,
      threshold: '≥ 2,000/s',
      pass: to.sustained >= 2000 && to.closed.problems.length === 0,
      othersCores: coresTakenFromRun(to.cpu),
    });
  }
  return checks;
}

export async function runEvents(s: EventsSettings, onCleanup: Cleanup): Promise<EventsReport> {
  const machine = machineFacts();
  const postgres = await postgresVersion();
  const producerSchema = isolatedName('bench_ev_producer');
  const consumerSchema = isolatedName('bench_ev_consumer');
  const stream = isolatedName('bench_ev_stream');
  const prefix = isolatedName('bench_ev');
  // Registered before they exist: a failure half-way still removes whatever was made.
  onCleanup(() => dropSchemas([producerSchema, consumerSchema]));
  onCleanup(() => deleteStreams([stream]));

  log(`schemas ${producerSchema} (outbox, state) and ${consumerSchema} (inbox); stream ${stream} on ${prefix}.>`);
  const producer = createDatabase<any>({ url: TEST_DATABASE_URL, schema: producerSchema, poolMax: s.producerPoolMax, applicationName: 'bench-events-producer' });
  onCleanup(() => producer.close());
  const consumerDb = createDatabase<any>({ url: TEST_DATABASE_URL, schema: consumerSchema, poolMax: s.consumerPoolMax, applicationName: 'bench-events-consumer' });
  onCleanup(() => consumerDb.close());
  await migrateToLatest(producer.db, producerSchema, {
    '0001_state': {
      up: async (db) => {
        await sql`create table bench_state (id uuid primary key default gen_random_uuid(), issue_id uuid not null, status text not null, changed_at timestamptz not null default now())`.execute(db);
      },
    },
    '0002_outbox': outboxMigration,
  });
  await migrateToLatest(consumerDb.db, consumerSchema, { '0001_inbox': inboxMigration });

  const pubNc = await connectNats({ url: TEST_NATS_URL, name: 'bench-events-producer', logger });
  onCleanup(() => pubNc.close());
  const subNc = await connectNats({ url: TEST_NATS_URL, name: 'bench-events-consumer', logger });
  onCleanup(() => subNc.close());
  const jsm = await jetstreamManager(pubNc);
  await ensureStream(jsm, { name: stream, subjects: [`${prefix}.>`], replicas: 1, maxAgeMs: 3_600_000, duplicateWindowMs: 120_000 });
  const nats = `NATS ${pubNc.info?.version ?? '?'} (JetStream, file storage, 1 replica)`;

  const env: Env = {
    s,
    producer,
    consumerDb,
    pubNc,
    pubJs: jetstream(pubNc),
    subJs: jetstream(subNc),
    subJsm: await jetstreamManager(subNc),
    stream,
    prefix,
    // The meter adds Postgres, Redis and the NATS server (`nats`) itself (lib/cpu.ts).
    groups: { 'bench process': [process.pid] },
    orgId: randomUUID(),
    onCleanup,
  };
  // Pool connections open before anything is measured.
  await Promise.all(Array.from({ length: s.producerPoolMax - 2 }, () => producer.pool.connect())).then((cs) => cs.forEach((c) => c.release()));

  const latency: LatencyPhase[] = [];
  latency.push(await latencyPhase(env, 'outbox'));
  latency.push(await latencyPhase(env, 'bare'));
  const throughput: ThroughputPhase[] = [];
  throughput.push(await throughputPhase(env, 'outbox'));
  throughput.push(await throughputPhase(env, 'bare'));
  throughput.push(await throughputPhase(env, 'outbox', false));
  throughput.push(await throughputPhase(env, 'outbox', true, true));
  const ceiling: CeilingPhase[] = [];
  for (const v of ['enqueueEvent', 'no-notify', 'notify-after-commit'] as const) ceiling.push(await ceilingPhase(env, v));
  const capacity: CapacityPhase[] = [];
  capacity.push(await capacityPhase(env, 'concurrent', s.capacityRows));
  capacity.push(await capacityPhase(env, 'serial', s.serialRows));

  return {
    settings: s,
    machine,
    postgres,
    nats,
    eventBytes: statusChanged(prefix).payload.byteLength,
    loadAtEnd: machineFacts().loadAverage,
    latency,
    throughput,
    capacity,
    ceiling,
    checks: checksOf(latency, throughput, s),
  };
}
