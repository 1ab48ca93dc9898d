import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { startSystem, type RunningSystem, type SystemOptions } from '../../support/system.ts';
import type { AddUndo } from './bench-entry.ts';
import { settle, type CpuGroups, type CpuUsage } from './cpu.ts';
import type { MachineFacts } from './machine.ts';
import { Samples, type LatencySummary } from './stats.ts';

/**
 * What the benchmarks of the whole system (tests/bench/delivery, tests/bench/integrations) share:
 * the report's frame, the worker thread standing in for the outside world, starting the system
 * (under the CPU profiler with `--cpu-prof`), waiting for it, and the sustained and bare windows.
 */

/** The settings every whole-system benchmark has. */
export interface SystemBenchSettings {
  /** Open loop, operations/s. */
  rate: number;
  warmupS: number;
  durationS: number;
  /** Measured seconds of the control run and of the run with a hanging endpoint (compared with each other). */
  compareDurationS: number;
  /** Sustained phase: work outstanding (sent × units − arrived) the generator keeps the system fed with. */
  feedWindow: number;
  tpWarmupS: number;
  tpDurationS: number;
  /** Bounded waits for stragglers. */
  drainTimeoutS: number;
  logLevel: string;
  cpuProfDir?: string | undefined;
  serviceEnv: Record<string, string>;
}

/** The defaults they share (`serviceEnv` a fresh object each call). */
export const systemBenchDefaults = () => ({ rate: 100, warmupS: 2, drainTimeoutS: 30, logLevel: 'warn', serviceEnv: {} as Record<string, string> });

/** What `--quick` shortens in every whole-system benchmark (each adds its own warm-ups). */
export const QUICK_SYSTEM_BENCH = { warmupS: 0.5, durationS: 3, compareDurationS: 3, tpDurationS: 3, drainTimeoutS: 20 } satisfies Partial<SystemBenchSettings>;

/**
 * The service settings a report lists: each of `defaults` as `--service-env` set it or else its
 * default (in that order), then `LOG_LEVEL` and the rest of `--service-env`.
 */
export function serviceSettingsOf(s: SystemBenchSettings, defaults: Record<string, string>): Record<string, string> {
  const given = Object.fromEntries(Object.entries(defaults).map(([k, v]) => [k, s.serviceEnv[k] ?? v]));
  return { ...given, LOG_LEVEL: s.logLevel, ...s.serviceEnv };
}

/** One target of a report, as its Targets table shows it. */
export interface Check {
  target: string;
  measured: string;
  threshold: string;
  ratio: string;
  pass: boolean;
}

/** What every whole-system report holds besides its phases. */
export interface SystemReport<S> {
  settings: S;
  machine: MachineFacts;
  loadAtEnd: [number, number, number];
  serviceSettings: Record<string, string>;
  checks: Check[];
}

/** A throughput window: the sustained run of the system, or a bare loop straight at the stand-ins. */
export interface ThroughputWindow {
  name: string;
  label: string;
  concurrency: number;
  windowS: number;
  /** Sustained only: units of work offered per second over the window. */
  offeredPerS?: number;
  /** Sustained only: work outstanding (sent × units − arrived) at the window's start and end, mean and max (sampled every 100 ms). */
  outstandingStart?: number;
  outstandingEnd?: number;
  outstandingMean?: number;
  outstandingMax?: number;
  /** Sustained only: seconds after sending stopped until everything arrived; NaN when not within the drain timeout. */
  drainS?: number;
  bounded?: boolean;
  /** Bare only: request → answer. */
  latency?: LatencySummary;
  errors: number;
  cpu: CpuUsage | undefined;
  settledS: number;
}

export type Cleanup = AddUndo;

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function ratio(a: number, b: number): number {
  return b > 0 ? a / b : NaN;
}

/** The samples of a Prometheus metric (exactly `name`, any labels) whose line passes `match`. */
function metricSamples(text: string, name: string, match: (line: string) => boolean): number[] {
  const out: number[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== ' ' && rest[0] !== '{') continue;
    if (!match(line)) continue;
    out.push(Number(line.trim().split(/\s+/).at(-1)));
  }
  return out;
}

/** Sum of a metric's samples whose line (name and labels) passes `match`; 0 when it has none. */
export function metricSum(text: string, name: string, match: (line: string) => boolean = () => true): number {
  return metricSamples(text, name, match).reduce((sum, v) => sum + v, 0);
}

/** Sum of a metric's samples; NaN when it has none. */
export function metricValue(text: string, name: string): number {
  return metricSamples(text, name, () => true).reduce((sum, v) => (Number.isNaN(sum) ? v : sum + v), NaN);
}

/**
 * A worker thread of this process standing in for the outside world (receivers, providers):
 * it answers `{ type, id }` messages with the same `id`, and `collect` hands over (and resets)
 * the arrivals it recorded.
 */
export class StandInWorker<R> {
  private worker!: Worker;
  private nextId = 0;
  private waiting = new Map<number, (msg: any) => void>();

  /** Starts the worker; resolves with its `listening` message. */
  protected async spawn(url: URL, workerData: unknown): Promise<any> {
    this.worker = new Worker(url, { workerData });
    return new Promise<any>((resolve, reject) => {
      this.worker.once('error', reject);
      this.worker.on('message', (msg) => {
        if (msg.type === 'listening') resolve(msg);
        else this.waiting.get(msg.id)?.(msg);
      });
    });
  }
  protected post(msg: Record<string, unknown>): void {
    this.worker.postMessage(msg);
  }
  protected ask(msg: Record<string, unknown>): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, (m) => {
        this.waiting.delete(id);
        resolve(m);
      });
      this.worker.postMessage({ ...msg, id });
    });
  }
  async collect(): Promise<R[]> {
    return (await this.ask({ type: 'collect' })).records;
  }
  private closing: Promise<void> | undefined;
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.race([this.ask({ type: 'close' }), sleep(5_000)]);
      await this.worker.terminate();
    })();
    return this.closing;
  }
}

/**
 * Starts every service as its own process from its bundle with `env` (with `cpuProfDir`: under
 * the CPU profiler, lib/cpu-profile-preload.mjs) and registers its stop, after closing `standIn`
 * (undone first, but the stand-ins close before the services stop).
 */
export async function startBenchSystem(o: {
  env: Record<string, string>;
  cpuProfDir: string | undefined;
  replicas: SystemOptions['replicas'];
  standIn: { close(): Promise<void> };
  onCleanup: Cleanup;
  log: (msg: string) => void;
  /** Appended to the log line that lists the settings. */
  describe?: string;
}): Promise<RunningSystem> {
  const overrides = { ...o.env };
  if (o.cpuProfDir) {
    const preload = fileURLToPath(new URL('./cpu-profile-preload.mjs', import.meta.url));
    overrides.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import=${pathToFileURL(preload).href}`.trim();
    overrides.BENCH_CPU_PROF_DIR = o.cpuProfDir;
  }
  o.log(`starting the system (${Object.entries(overrides).filter(([k]) => k !== 'NODE_OPTIONS').map(([k, v]) => `${k}=${v}`).join(', ')}${o.describe ?? ''})`);
  const sys = await startSystem(overrides, { replicas: o.replicas, built: true });
  o.onCleanup(async () => {
    await o.standIn.close();
    await sys.stop();
  });
  return sys;
}

/**
 * With --cpu-prof: each service writes what it profiled so far and starts afresh (SIGUSR2,
 * lib/cpu-profile-preload.mjs), so the sustained window has profiles of its own
 * (<service>-<pid>-2.cpuprofile): the latency runs, at a tenth of the rate, would otherwise
 * outweigh it.
 */
export function cutProfiles(sys: RunningSystem, cpuProfDir: string | undefined): void {
  if (!cpuProfDir) return;
  for (const p of Object.values(sys.replicas).flat()) if (p.child.pid) process.kill(p.child.pid, 'SIGUSR2');
}

/** Waits (up to 30 s) until `groups` go idle; the seconds waited. */
export async function quiesce(groups: CpuGroups, log: (msg: string) => void): Promise<number> {
  const r = await settle(groups, { maxS: 30 });
  if (r.waitedS > 3) log(`  waited ${r.waitedS.toFixed(0)} s for the system to go idle${r.settled ? '' : ' (it did not; measuring anyway)'}`);
  return r.waitedS;
}

/** Waits (bounded) until `count()` reaches `target`; the seconds waited, NaN on timeout. */
export async function waitForCount(count: () => number, target: number, timeoutS: number): Promise<number> {
  const t0 = performance.now();
  while (count() < target) {
    if (performance.now() - t0 > timeoutS * 1000) return NaN;
    await sleep(10);
  }
  return (performance.now() - t0) / 1000;
}

/** The timeline bucket of operation `seq` of an open loop at `rate`/s (`bucketS` seconds each) after `warmupCount` unmeasured ones. */
export function bucketOf<B>(buckets: B[], seq: number, warmupCount: number, rate: number, bucketS: number): B {
  return buckets[Math.min(buckets.length - 1, Math.floor((seq - warmupCount) / rate / bucketS))]!;
}

/** The sends of a sustained window: finished, still in flight, failed. */
export interface FeedState {
  done: number;
  pending: number;
  errors: number;
  /** Sends whose promise has not settled. */
  inflight: number;
}

/** Arrivals, sends (finished or in flight) and work outstanding at one moment of a sustained window. */
export interface FeedMark {
  arrived: number;
  sent: number;
  outstanding: number;
}

/** Share of the window outstanding at which the feed is paced by arrivals. */
const FULL_WINDOW = 0.9;
/**
 * A feed that has not filled its window this long after the warm-up is measured once the
 * outstanding work stopped growing (by less than FLAT_GROWTH of the window over FLAT_SPAN_MS):
 * the system keeps up with all the feed can send. One still filling, however slowly, is waited
 * for, up to MAX_FILL_WAIT_MS: measured then, it read as a growing backlog.
 */
const MAX_EXTRA_WARMUP_MS = 30_000;
const FLAT_SPAN_MS = 10_000;
const FLAT_GROWTH = 0.025;
const MAX_FILL_WAIT_MS = 120_000;

/**
 * The sustained window: sends `batch` at a time whenever the work outstanding (sends × `units`
 * − arrivals since the start) leaves room for them within `feedWindow` and `room` allows (else
 * it waits a millisecond), and samples the outstanding work every 100 ms of the measured part.
 * The measured `durationS` starts once the warm-up of `warmupS` is over and the window is
 * FULL_WINDOW full, so that the feed is paced by what arrives and the rate measured is what
 * the system sustains; a system that keeps up with everything `room` lets the feed send never
 * fills it, and is measured once its outstanding work is flat (see MAX_EXTRA_WARMUP_MS). `onStart` runs when the
 * measured part starts; the state stays live, and `settled` waits for the sends still in flight.
 */
export async function feedWindow(o: {
  warmupS: number;
  durationS: number;
  units: number;
  feedWindow: number;
  batch: number;
  arrived(): number;
  room(f: FeedState): boolean;
  send(seq: number): Promise<void>;
  onStart(): void;
}): Promise<{ state: FeedState; start: FeedMark; end: FeedMark; outstanding: Samples; settled: () => Promise<unknown> }> {
  const f: FeedState = { done: 0, pending: 0, errors: 0, inflight: 0 };
  const a0 = o.arrived();
  const outstanding = () => (f.done + f.pending) * o.units - (o.arrived() - a0);
  const mark = (): FeedMark => ({ arrived: o.arrived(), sent: f.done + f.pending, outstanding: outstanding() });
  const warmupEnd = performance.now() + o.warmupS * 1000;
  let windowEnd = Infinity;
  let start: FeedMark | undefined;
  let seq = 0;
  let lastSample = 0;
  const samples = new Samples();
  const inflight = new Set<Promise<void>>();
  // (time, outstanding) every half second while waiting for the window to fill.
  const filling: Array<[number, number]> = [];
  const flat = (now: number) => {
    if (filling.length === 0 || now - (filling.at(-1)?.[0] ?? 0) >= 500) filling.push([now, outstanding()]);
    const past = filling.find(([t]) => t >= now - FLAT_SPAN_MS);
    return past !== undefined && now - past[0] >= FLAT_SPAN_MS - 500 && outstanding() - past[1] < FLAT_GROWTH * o.feedWindow;
  };
  while (performance.now() < windowEnd) {
    const now = performance.now();
    if (
      !start &&
      now >= warmupEnd &&
      (outstanding() >= FULL_WINDOW * o.feedWindow || (now >= warmupEnd + MAX_EXTRA_WARMUP_MS && flat(now)) || now >= warmupEnd + MAX_FILL_WAIT_MS)
    ) {
      start = mark();
      windowEnd = now + o.durationS * 1000;
      o.onStart();
    }
    if (start && now - lastSample >= 100) {
      samples.push(outstanding());
      lastSample = now;
    }
    f.inflight = inflight.size;
    if (outstanding() + o.batch * o.units > o.feedWindow || !o.room(f)) {
      await sleep(1);
      continue;
    }
    for (let i = 0; i < o.batch; i++) {
      f.pending += 1;
      const p = o.send(seq++).then(
        () => {
          f.pending -= 1;
          f.done += 1;
        },
        () => {
          f.pending -= 1;
          f.errors += 1;
        },
      );
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    }
  }
  return { state: f, start: start ?? mark(), end: mark(), outstanding: samples, settled: () => Promise.allSettled([...inflight]) };
}

/**
 * A bare closed loop: `concurrency` loops, each made by `loop(w)`, running its step (given a
 * running number) until `warmupS` + `durationS` are over; `onStart` runs when the measured part
 * starts. A step records a request sent at `sentMs` with `record` (counted only within the
 * measured part) and an error with `error`; a step that throws counts as an error.
 */
export async function bareLoop(o: {
  warmupS: number;
  durationS: number;
  concurrency: number;
  onStart(): void;
  loop(w: number, t: { record(sentMs: number): void; error(): void }): (seq: number) => Promise<void>;
}): Promise<{ errors: number; latency: Samples }> {
  const windowStart = performance.now() + o.warmupS * 1000;
  const windowEnd = windowStart + o.durationS * 1000;
  let errors = 0;
  let seq = 0;
  const lat = new Samples();
  const t = {
    record(sentMs: number) {
      if (sentMs >= windowStart) lat.push(performance.now() - sentMs);
    },
    error() {
      errors += 1;
    },
  };
  const windowTimer = setTimeout(o.onStart, o.warmupS * 1000);
  await Promise.all(
    Array.from({ length: o.concurrency }, async (_, w) => {
      const step = o.loop(w, t);
      while (performance.now() < windowEnd) {
        try {
          await step(seq++);
        } catch {
          errors += 1;
        }
      }
    }),
  );
  clearTimeout(windowTimer);
  return { errors, latency: lat };
}
