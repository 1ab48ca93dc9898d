import autocannon from 'autocannon';
import type { CpuMeter } from './cpu.ts';
import { Samples, summarise, type LatencySummary } from './stats.ts';

/** A closed-loop throughput run: a fixed number of connections, each sending as soon as it is answered. */
export interface ThroughputResult {
  /** Successful (expected-status) completions per second over the measured window. */
  rps: number;
  ok: number;
  failed: number;
  durationS: number;
  latency: LatencySummary;
  /** Status codes other than the expected one, and socket errors/timeouts; a run with any is flagged. */
  problems: string[];
}

export interface HttpTarget {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  expectStatus: number;
}

export interface ClosedLoopOptions {
  connections: number;
  warmupS: number;
  durationS: number;
  /** Prepared after the warm-up, started and stopped with the measured window. */
  window?: Pick<CpuMeter, 'prepare' | 'start' | 'stop'> | undefined;
}

/** autocannon against one HTTP target: a warm-up whose figures are discarded, then the measured run. */
export async function httpThroughput(target: HttpTarget, opts: ClosedLoopOptions): Promise<ThroughputResult> {
  const base = {
    url: target.url,
    method: target.method,
    headers: target.headers,
    connections: opts.connections,
    pipelining: 1,
    timeout: 10,
    ...(target.body !== undefined ? { body: target.body } : {}),
  };
  if (opts.warmupS > 0) await autocannon({ ...base, duration: opts.warmupS });
  await opts.window?.prepare();
  opts.window?.start();
  const r = await autocannon({ ...base, duration: opts.durationS });
  opts.window?.stop();
  const ok = r.statusCodeStats[String(target.expectStatus)]?.count ?? 0;
  const problems: string[] = [];
  for (const [code, { count }] of Object.entries(r.statusCodeStats)) {
    if (Number(code) !== target.expectStatus) problems.push(`${count}× HTTP ${code}`);
  }
  if (r.errors > 0) problems.push(`${r.errors} socket errors`);
  if (r.timeouts > 0) problems.push(`${r.timeouts} timeouts`);
  const failed = r.latency.totalCount - ok + r.errors;
  return {
    rps: ok / r.duration,
    ok,
    failed: Math.max(0, failed),
    durationS: r.duration,
    latency: {
      count: r.latency.totalCount,
      p50: r.latency.p50,
      p90: r.latency.p90,
      p99: r.latency.p99,
      max: r.latency.max,
      mean: r.latency.mean,
    },
    problems,
  };
}

/**
 * The same closed loop for work that is not HTTP (the raw-SQL baseline): `workers` concurrent
 * loops each run `op` back to back, first for the warm-up, then (after a pause for the meter)
 * for the measured window. A completion counts when it lands inside the window, as autocannon
 * counts responses; loops stop at the window's end.
 */
export async function opThroughput(
  op: () => Promise<void>,
  opts: Omit<ClosedLoopOptions, 'connections'> & { workers: number },
): Promise<ThroughputResult> {
  const run = async (durationS: number, counted: boolean) => {
    const from = performance.now();
    const until = from + durationS * 1000;
    const latencies = new Samples();
    let ok = 0;
    let failed = 0;
    const errors = new Map<string, number>();
    const worker = async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        try {
          await op();
          const t1 = performance.now();
          if (t1 <= until) {
            ok += 1;
            latencies.push(t1 - t0);
          }
        } catch (err) {
          if (performance.now() <= until) failed += 1;
          const msg = (err as Error).message;
          errors.set(msg, (errors.get(msg) ?? 0) + 1);
        }
      }
    };
    if (counted) opts.window?.start();
    await Promise.all(Array.from({ length: opts.workers }, worker));
    if (counted) opts.window?.stop();
    return { ok, failed, latencies, errors };
  };
  if (opts.warmupS > 0) await run(opts.warmupS, false);
  await opts.window?.prepare();
  const r = await run(opts.durationS, true);
  return {
    rps: r.ok / opts.durationS,
    ok: r.ok,
    failed: r.failed,
    durationS: opts.durationS,
    latency: summarise(r.latencies.values()),
    problems: [...r.errors].map(([msg, n]) => `${n}× ${msg}`),
  };
}
