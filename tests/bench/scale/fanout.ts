import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { headers } from '@nats-io/nats-core';
import { EVENT_TYPE_HEADER, ORG_ID_HEADER, connectNats } from '@preflight/bus';
import { encodeEvent } from '@preflight/events';
import { createLogger } from '@preflight/log';
import { TEST_NATS_URL } from '@preflight/testing';
import type { RunningSystem } from '../../support/system.ts';
import { issueCreated, Receivers, type ArrivalRecord } from '../delivery/bench.ts';
import { openLoop, type OpenLoopResult } from '../lib/open-loop.ts';
import { withBenchClient } from '../lib/postgres.ts';
import { Samples, summarise, type LatencySummary } from '../lib/stats.ts';
import { feedWindow, metricSum, sleep, waitForCount, type Cleanup } from '../lib/system-bench.ts';

/**
 * Delivery fan-out to the webhook organisation's endpoints: IssueCreated events published
 * straight onto the system's stream (as the outbox relay does), delivered to loopback receivers
 * in a worker thread (tests/bench/delivery's). Latency is receiver arrival − the moment the
 * event was built, on the machine's monotonic clock.
 */

export interface FanoutLatency {
  open: OpenLoopResult;
  latency: LatencySummary;
  expected: number;
  arrived: number;
}

export interface FanoutSustained {
  deliveredPerS: number;
  offeredPerS: number;
  errors: number;
  drainS: number;
}

export interface SweepEffect {
  /** Attempts the sweep was to delete (older than its cutoff when it started) and deleted. */
  due: number;
  deleted: number;
  /** From the restarted service's readiness to the last row deleted; NaN when it did not finish within the window. */
  sweepS: number;
  /** Deliveries of events published while the sweep ran (at least the first second after the restart). */
  during: LatencySummary;
  /** Deliveries of events published in as many seconds after a restart without a sweep. */
  control: LatencySummary;
}

export interface Fanout {
  receivers: Receivers;
  /** The busy endpoints (the webhook organisation's) and the small set's quiet one. */
  busy: Array<{ id: string }>;
  quiet: { id: string };
  latency(name: string, o: { rate: number; warmupS: number; durationS: number; drainTimeoutS: number }): Promise<FanoutLatency>;
  sustained(o: { warmupS: number; durationS: number; feedWindow: number; drainTimeoutS: number }): Promise<FanoutSustained>;
  /** Fan-out while the delivery service's retention sweep runs, against a restart without one (`sweep` below). */
  sweep(o: { rate: number; retentionDays: number; windowS: number; drainTimeoutS: number }): Promise<SweepEffect>;
}

type Log = (msg: string) => void;

/** Starts the receivers (before the system: they are its stand-in). */
export async function startReceivers(endpoints: number, onCleanup: Cleanup): Promise<Receivers> {
  const receivers = new Receivers();
  await receivers.start(endpoints, 0);
  onCleanup(() => receivers.close());
  return receivers;
}

/** Creates the endpoints through the admin API (secrets sealed by the webhook service) and connects the publisher. */
export async function setUpFanout(
  sys: RunningSystem,
  receivers: Receivers,
  o: { busyOrg: string; busy: number; quietOrg: string },
  onCleanup: Cleanup,
  log: Log,
): Promise<Fanout> {
  const create = async (orgId: string, port: number, name: string) => {
    const res = await fetch(`${sys.gatewayUrl}/admin/v1/organizations/${orgId}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sys.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/hooks/${name}`, events: ['IssueCreated'], name }),
    });
    if (res.status !== 201) throw new Error(`creating webhook ${name} → ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string; secret: string };
  };
  const busy: Array<{ id: string; secret: string }> = [];
  for (let i = 0; i < o.busy; i++) busy.push(await create(o.busyOrg, receivers.healthyPorts[i]!, `busy-${i}`));
  const quiet = await create(o.quietOrg, receivers.healthyPorts[o.busy]!, 'quiet');
  receivers.setSecrets([...busy, quiet].map((h) => h.secret));
  log(`${busy.length} webhooks in the webhook organisation, 1 in the small one → loopback receivers`);

  const nc = await connectNats({ url: TEST_NATS_URL, name: 'bench-scale-publisher', logger: createLogger('bench-scale', { level: 'warn' }) });
  onCleanup(() => nc.close());
  const js = jetstream(nc);
  const prefix = sys.env.EVENTS_SUBJECT_PREFIX!;
  const campaignId = randomUUID();
  const publish = async (phase: string, seq: number): Promise<void> => {
    const enc = encodeEvent(issueCreated(o.busyOrg, campaignId, phase, seq), prefix);
    const h = headers();
    h.set(EVENT_TYPE_HEADER, enc.type);
    h.set(ORG_ID_HEADER, o.busyOrg);
    await js.publish(enc.subject, enc.payload, { msgID: randomUUID(), headers: h, timeout: 5_000 });
  };
  const E = busy.length;

  /** Publish → arrival of the events of `phase` numbered from `fromSeq`, duplicates dropped; `keep` picks by publish time (ns). */
  const arrivals = async (phase: string, fromSeq: number, keep: (publishedNs: bigint) => boolean = () => true) => {
    const seen = new Set<string>();
    const all = new Samples();
    for (const r of await receivers.collect()) {
      if (r.phase !== phase || r.seq < fromSeq || seen.has(`${r.r}:${r.id}`) || !keep(BigInt(r.publishedNs))) continue;
      seen.add(`${r.r}:${r.id}`);
      all.push(Number(BigInt(r.arrivedNs) - BigInt(r.publishedNs)) / 1e6);
    }
    return all;
  };

  async function latency(name: string, s: { rate: number; warmupS: number; durationS: number; drainTimeoutS: number }): Promise<FanoutLatency> {
    log(`fan-out ${name}: ${s.rate} events/s × ${E} endpoints, ${s.warmupS} s warm-up + ${s.durationS} s`);
    const warmupCount = Math.round(s.rate * s.warmupS);
    // One event first: the fan-out's caches (endpoints, connections) are warm before the clock starts.
    const smoke = receivers.arrivals;
    await publish('smoke', 0);
    if (Number.isNaN(await waitForCount(() => receivers.arrivals, smoke + E, s.drainTimeoutS))) throw new Error(`a smoke event did not reach all ${E} endpoints within ${s.drainTimeoutS} s`);
    const a0 = receivers.arrivals;
    let seq = 0;
    const open = await openLoop(() => publish(name, seq++), { rate: s.rate, warmupS: s.warmupS, durationS: s.durationS, drainTimeoutS: s.drainTimeoutS });
    await waitForCount(() => receivers.arrivals, a0 + seq * E, s.drainTimeoutS);
    const all = await arrivals(name, warmupCount);
    const latency = summarise(all.values());
    log(`  p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms; ${all.length}/${(seq - warmupCount) * E} arrived`);
    return { open, latency, expected: (seq - warmupCount) * E, arrived: all.length };
  }

  async function sustained(s: { warmupS: number; durationS: number; feedWindow: number; drainTimeoutS: number }): Promise<FanoutSustained> {
    log(`fan-out sustained: publishing while fewer than ${s.feedWindow} deliveries are outstanding, ${s.warmupS} s warm-up + ${s.durationS} s`);
    const a0 = receivers.arrivals;
    const feed = await feedWindow({
      warmupS: s.warmupS,
      durationS: s.durationS,
      units: E,
      feedWindow: s.feedWindow,
      batch: 10,
      arrived: () => receivers.arrivals,
      room: (f) => f.inflight < 8,
      send: (seq) => publish('sustained', seq),
      onStart: () => undefined,
    });
    await feed.settled();
    const drainS = await waitForCount(() => receivers.arrivals, a0 + feed.state.done * E, s.drainTimeoutS);
    await receivers.collect();
    const out = {
      deliveredPerS: (feed.end.arrived - feed.start.arrived) / s.durationS,
      offeredPerS: ((feed.end.sent - feed.start.sent) * E) / s.durationS,
      errors: feed.state.errors,
      drainS,
    };
    log(`  ${Math.round(out.deliveredPerS)}/s delivered (offered ${Math.round(out.offeredPerS)}/s), drained in ${drainS.toFixed(1)} s`);
    return out;
  }

  /** Restarts the delivery service with `env` and publishes at `rate` for `windowS` from its readiness; the records of `phase`, and when it was ready. */
  async function afterRestart(phase: string, env: Record<string, string>, s: { rate: number; windowS: number; drainTimeoutS: number }, during?: () => Promise<void>) {
    Object.assign(sys.env, env);
    await sys.restart('delivery');
    const readyNs = process.hrtime.bigint();
    const a0 = receivers.arrivals;
    let seq = 0;
    await Promise.all([openLoop(() => publish(phase, seq++), { rate: s.rate, warmupS: 0, durationS: s.windowS, drainTimeoutS: s.drainTimeoutS }), during?.()]);
    await waitForCount(() => receivers.arrivals, a0 + seq * E, s.drainTimeoutS);
    return { readyNs, records: (await receivers.collect()).filter((r) => r.phase === phase) };
  }

  /** Publish → arrival of `records` published within [fromNs, toNs], duplicates dropped. */
  const between = (records: ArrivalRecord[], fromNs: bigint, toNs: bigint) => {
    const seen = new Set<string>();
    const all = new Samples();
    for (const r of records) {
      const at = BigInt(r.publishedNs);
      if (at < fromNs || at > toNs || seen.has(`${r.r}:${r.id}`)) continue;
      seen.add(`${r.r}:${r.id}`);
      all.push(Number(BigInt(r.arrivedNs) - at) / 1e6);
    }
    return summarise(all.values());
  };

  /**
   * The retention sweep's effect: the delivery service restarted twice, first without a sweep
   * (the control: a restarted process is slow for its first seconds anyway), then with
   * DELIVERY_LOG_RETENTION_DAYS = `retentionDays` swept every second (its first sweep starts
   * within a second of the start). Deliveries of events published while the sweep ran are
   * compared with those of the same seconds after the control restart.
   */
  async function sweep(s: { rate: number; retentionDays: number; windowS: number; drainTimeoutS: number }): Promise<SweepEffect> {
    const schema = sys.schemas.delivery;
    const due = await withBenchClient(async (c) => {
      const { rows } = await c.query<{ n: string }>(`select count(*) as n from "${schema}".delivery_attempts where attempted_at < now() - $1 * interval '1 day'`, [s.retentionDays]);
      return Number(rows[0]!.n);
    });
    log(`retention sweep: control restart of the delivery service (no sweep), ${s.rate} events/s for ${s.windowS} s`);
    const control = await afterRestart('control', { DELIVERY_LOG_RETENTION_DAYS: '0' }, s);
    log(`retention sweep: restart with DELIVERY_LOG_RETENTION_DAYS=${s.retentionDays} (${due.toLocaleString('en-US')} attempts older), swept every second`);
    let deleted = 0;
    let endNs: bigint | undefined;
    const poll = async () => {
      const until = performance.now() + s.windowS * 1000;
      while (performance.now() < until && deleted < due) {
        const texts = await Promise.all(sys.replicas.delivery.map(async (p) => (await fetch(`${p.url}/metrics`).catch(() => undefined))?.text() ?? ''));
        deleted = Math.max(deleted, texts.reduce((acc, t) => acc + metricSum(t, 'delivery_log_rows_deleted_total', (l) => l.includes('table="attempts"')), 0));
        if (deleted >= due) endNs = process.hrtime.bigint();
        else await sleep(100);
      }
    };
    const swept = await afterRestart('sweep', { DELIVERY_LOG_RETENTION_DAYS: String(s.retentionDays), DELIVERY_LOG_RETENTION_SWEEP_MS: '1000' }, s, poll);
    // Back to no sweep: the dead rows it left would cost every later sweep a walk over them.
    Object.assign(sys.env, { DELIVERY_LOG_RETENTION_DAYS: '0' });
    const sweepNs = endNs === undefined ? BigInt(s.windowS * 1e9) : endNs - swept.readyNs;
    // At least a second of deliveries on each side, however quick the sweep was.
    const spanNs = sweepNs > 1_000_000_000n ? sweepNs : 1_000_000_000n;
    const out: SweepEffect = {
      due,
      deleted,
      sweepS: endNs === undefined ? NaN : Number(sweepNs) / 1e9,
      during: between(swept.records, swept.readyNs, swept.readyNs + spanNs),
      control: between(control.records, control.readyNs, control.readyNs + spanNs),
    };
    log(`  ${deleted.toLocaleString('en-US')} of ${due.toLocaleString('en-US')} deleted in ${out.sweepS.toFixed(1)} s; fan-out p99 ${out.during.p99.toFixed(1)} ms during the sweep (${out.during.count} deliveries), ${out.control.p99.toFixed(1)} ms in the same seconds after the control restart`);
    return out;
  }

  return { receivers, busy, quiet, latency, sustained, sweep };
}
