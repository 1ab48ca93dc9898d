import { Pool } from 'undici';
import type { HttpTarget } from './closed-loop.ts';
import { Samples, summarise, type LatencySummary } from './stats.ts';

/**
 * An open-loop run: operation i is due at start + i/rate whatever happened to the earlier ones,
 * and its latency is measured from that due time, not from when it was actually sent. A stall
 * therefore shows up in every operation it delays (no coordinated omission), as a user arriving
 * on their own schedule would see it.
 */
export interface OpenLoopResult {
  targetRate: number;
  /**
   * Successful completions per second, from the first measured due time to the last answer:
   * the target rate when the target keeps up, less when answers pile up behind it.
   */
  achievedRate: number;
  scheduled: number;
  ok: number;
  failed: number;
  /** From the due time to the last byte of the answer. */
  latency: LatencySummary;
  /** How late the generator itself sent (actual send − due time); large values mean the numbers are the harness's, not the target's. */
  sendLag: LatencySummary;
  problems: string[];
}

export interface OpenLoopOptions {
  rate: number;
  warmupS: number;
  durationS: number;
  /** How long to wait for the answers still outstanding after the last send; the rest count as failed. */
  drainTimeoutS?: number;
  /** Started when the first measured operation is due, stopped when the last answer arrived. */
  window?: { start(): void; stop(): void } | undefined;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * `op` gets the operation's number (0 is the first warm-up one) and its due time
 * (performance.now() milliseconds), e.g. to stamp a request with the moment it was due.
 */
export async function openLoop(op: (i: number, dueMs: number) => Promise<void>, opts: OpenLoopOptions): Promise<OpenLoopResult> {
  const interval = 1000 / opts.rate;
  const warmupCount = Math.round(opts.rate * opts.warmupS);
  const total = warmupCount + Math.round(opts.rate * opts.durationS);
  const latencies = new Samples();
  const lags = new Samples();
  const errors = new Map<string, number>();
  const inflight = new Set<Promise<void>>();
  let ok = 0;
  let failed = 0;
  let firstDue = NaN;
  let lastAnswer = NaN;

  const fire = (i: number, due: number) => {
    const measured = i >= warmupCount;
    if (measured) lags.push(performance.now() - due);
    const p = op(i, due).then(
      () => {
        if (!measured) return;
        ok += 1;
        lastAnswer = performance.now();
        latencies.push(lastAnswer - due);
      },
      (err: unknown) => {
        if (!measured) return;
        failed += 1;
        const msg = (err as Error).message;
        errors.set(msg, (errors.get(msg) ?? 0) + 1);
      },
    );
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };

  const start = performance.now();
  let i = 0;
  while (i < total) {
    const now = performance.now();
    // Everything already due goes out now, each keeping its own due time.
    while (i < total && start + i * interval <= now) {
      if (i === warmupCount) {
        firstDue = start + i * interval;
        opts.window?.start();
      }
      fire(i, start + i * interval);
      i += 1;
    }
    if (i < total) await sleep(Math.max(0, start + i * interval - performance.now()));
  }

  const drainMs = (opts.drainTimeoutS ?? 15) * 1000;
  let drainTimer: NodeJS.Timeout | undefined;
  const drained = await Promise.race([
    Promise.allSettled([...inflight]).then(() => true),
    new Promise<false>((r) => (drainTimer = setTimeout(() => r(false), drainMs))),
  ]);
  clearTimeout(drainTimer);
  opts.window?.stop();
  if (!drained) {
    const unfinished = inflight.size;
    failed += unfinished;
    errors.set(`no answer within ${opts.drainTimeoutS ?? 15} s of the last send`, unfinished);
  }

  return {
    targetRate: opts.rate,
    achievedRate: ok > 0 ? ok / (Math.max(lastAnswer - firstDue, opts.durationS * 1000) / 1000) : 0,
    scheduled: total - warmupCount,
    ok,
    failed,
    latency: summarise(latencies.values()),
    sendLag: summarise(lags.values()),
    problems: [...errors].map(([msg, n]) => `${n}× ${msg}`),
  };
}

/** One HTTP request as an open-loop operation; the whole body is read, a status other than expected fails it. */
export function httpOp(target: HttpTarget): { op: () => Promise<void>; close: () => Promise<void> } {
  const url = new URL(target.url);
  // Enough connections that the client never queues at 200/s unless the server stalls; a queued
  // request still counts from its due time.
  const pool = new Pool(url.origin, { connections: 128, pipelining: 1, headersTimeout: 10_000, bodyTimeout: 10_000 });
  const path = url.pathname + url.search;
  return {
    op: async () => {
      const res = await pool.request({ path, method: target.method, headers: target.headers, body: target.body ?? null });
      await res.body.arrayBuffer();
      if (res.statusCode !== target.expectStatus) throw new Error(`HTTP ${res.statusCode}`);
    },
    close: () => pool.close(),
  };
}
