import type { RunningSystem } from '../../support/system.ts';
import { httpThroughput, type ThroughputResult } from '../lib/closed-loop.ts';
import { httpOp, openLoop, type OpenLoopResult } from '../lib/open-loop.ts';
import { metricSum, sleep } from '../lib/system-bench.ts';

/**
 * The scale benchmark's measurements through the gateway, as a client calls it: one read at a
 * fixed rate (open loop: latency from each request's due time), create throughput (closed
 * loop) and the readiness consumer's cost per event (the campaign service's own metrics).
 */

type Log = (msg: string) => void;

export interface WindowSettings {
  warmupS: number;
  durationS: number;
  drainTimeoutS: number;
}

/** A GET through the gateway at `rate`/s; any answer but 200 fails the request. */
export async function readWindow(sys: RunningSystem, path: string, auth: Record<string, string>, rate: number, w: WindowSettings): Promise<OpenLoopResult> {
  const { op, close } = httpOp({ url: `${sys.gatewayUrl}${path}`, method: 'GET', headers: auth, expectStatus: 200 });
  try {
    return await openLoop(op, { rate, warmupS: w.warmupS, durationS: w.durationS, drainTimeoutS: w.drainTimeoutS });
  } finally {
    await close();
  }
}

const issueBody = (title: string) =>
  JSON.stringify({ title, severity: 'Low', type: 'Bug', pageUrl: 'https://shop.example.com/checkout', description: 'Filed by the scale benchmark.' });

const createTarget = (sys: RunningSystem, campaignId: string, apiKey: string) => ({
  url: `${sys.gatewayUrl}/api/v1/campaigns/${campaignId}/issues`,
  method: 'POST' as const,
  headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
  body: issueBody('Filed by the scale benchmark'),
  expectStatus: 201,
});

/** Creates at `rate`/s (open loop): the create p99. */
export async function createLatency(sys: RunningSystem, campaignId: string, apiKey: string, rate: number, w: WindowSettings): Promise<OpenLoopResult> {
  const { op, close } = httpOp(createTarget(sys, campaignId, apiKey));
  try {
    return await openLoop(op, { rate, warmupS: w.warmupS, durationS: w.durationS, drainTimeoutS: w.drainTimeoutS });
  } finally {
    await close();
  }
}

/** Creates as fast as `connections` callers can (closed loop): the create throughput. */
export function createThroughput(sys: RunningSystem, campaignId: string, apiKey: string, connections: number, w: WindowSettings): Promise<ThroughputResult> {
  return httpThroughput(createTarget(sys, campaignId, apiKey), { connections, warmupS: w.warmupS, durationS: w.durationS });
}

export interface ReadinessCost {
  filed: number;
  events: number;
  transactions: number;
  /** Mean consumer transaction time per event (inbox, projection, statistics, verdict, commit), ms. */
  perEventMs: number;
}

const READINESS = (line: string) => line.includes('consumer="campaign-readiness"');

/**
 * Files `count` issues at `rate`/s into one campaign and reads, from the campaign service's
 * metrics, what its readiness consumer spent on them: consumer_processing_duration_seconds
 * (a transaction: inbox rows, projection upsert, statistics, verdict, commit) over the events
 * it handled (consumer_batch_size). Waits (bounded) until every filed issue was consumed.
 */
export async function readinessCost(sys: RunningSystem, campaignId: string, apiKey: string, o: { rate: number; durationS: number; drainTimeoutS: number }, log: Log): Promise<ReadinessCost> {
  const scrape = async () => {
    const text = await (await fetch(`${sys.processes.campaign.url}/metrics`)).text();
    return {
      seconds: metricSum(text, 'consumer_processing_duration_seconds_sum', READINESS),
      transactions: metricSum(text, 'consumer_processing_duration_seconds_count', READINESS),
      events: metricSum(text, 'consumer_batch_size_sum', READINESS),
    };
  };
  // Earlier phases' events (thousands of creates) may still be in the consumer: wait until it is idle.
  let before = await scrape();
  for (const until = performance.now() + o.drainTimeoutS * 1000; performance.now() < until; ) {
    await sleep(1_000);
    const now = await scrape();
    if (now.events === before.events) break;
    before = now;
  }
  const open = await createLatency(sys, campaignId, apiKey, o.rate, { warmupS: 0, durationS: o.durationS, drainTimeoutS: o.drainTimeoutS });
  const filed = open.ok;
  const deadline = performance.now() + o.drainTimeoutS * 1000;
  let after = await scrape();
  while (after.events - before.events < filed && performance.now() < deadline) {
    await sleep(100);
    after = await scrape();
  }
  const events = after.events - before.events;
  if (events < filed) log(`  only ${events} of ${filed} IssueCreated events consumed within ${o.drainTimeoutS} s`);
  return { filed, events, transactions: after.transactions - before.transactions, perEventMs: ((after.seconds - before.seconds) / events) * 1000 };
}
