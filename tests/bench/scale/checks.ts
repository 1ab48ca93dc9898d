import { fmtMs, fmtRate } from '../lib/report.ts';
import { ratio, type Check } from '../lib/system-bench.ts';
import type { ScaleReport } from './bench.ts';

/** The targets (issue 25, "Targets"), each from figures of the same run. */

const RSS_LIMIT_MB = 256;
const LOAD_LIMIT_S = 600;

const check = (target: string, measured: number, limit: number, fmt: (v: number) => string, threshold: string, r: number, pass: boolean): Check => ({
  target,
  measured: fmt(measured),
  threshold: threshold.replace('%', fmt(limit)),
  ratio: Number.isFinite(r) ? `${r.toFixed(2)}×` : '–',
  pass,
});

export function scaleChecks(r: ScaleReport): Check[] {
  const out: Check[] = [];
  const read = (label: string) => r.reads.find((x) => x.label === label);
  for (const x of r.reads) {
    const q = ratio(x.big.latency.p99, x.small.latency.p99);
    const failed = x.big.failed + x.small.failed;
    out.push(check(`${x.label} (${x.rate}/s): p99, large vs small`, x.big.latency.p99, 1.5 * x.small.latency.p99, fmtMs, '≤ 1.5× small (%)', q, q <= 1.5 && failed === 0));
  }
  const page1 = read("list issues, page 1, at the other reads' rate");
  const deep = read('list issues, deep page');
  if (page1 && deep) {
    const q = ratio(deep.big.latency.p99, page1.big.latency.p99);
    out.push(check('deep page vs page 1 (large): p99', deep.big.latency.p99, 2 * page1.big.latency.p99, fmtMs, '≤ 2× page 1 (%)', q, q <= 2));
  }
  const list = read('list issues, page 1');
  if (list) {
    out.push(check(`list p99 at ${list.rate}/s through the gateway, small`, list.small.latency.p99, 5, fmtMs, '≤ %', NaN, list.small.latency.p99 <= 5 && list.small.failed === 0));
    out.push(check(`list p99 at ${list.rate}/s through the gateway, large`, list.big.latency.p99, 7.5, fmtMs, '≤ %', NaN, list.big.latency.p99 <= 7.5 && list.big.failed === 0));
  }
  {
    const { big, empty } = r.create;
    const q = ratio(big.throughput.rps, empty.throughput.rps);
    out.push(check('create throughput, big campaign vs empty', big.throughput.rps, 0.8 * empty.throughput.rps, fmtRate, '≥ 0.8× empty (%)', q, q >= 0.8));
  }
  {
    const { big, small } = r.readiness;
    const q = ratio(big.perEventMs, small.perEventMs);
    out.push(check(`readiness cost per event, ${r.plan.openCampaignIssues.toLocaleString('en-US')} open issues vs ${r.plan.small.openIssues}`, big.perEventMs, 1.2 * small.perEventMs, fmtMs, '≤ 1.2× (%)', q, q <= 1.2 && big.events >= big.filed && small.events >= small.filed));
  }
  {
    const peak: Record<string, number> = {};
    for (const phase of r.rss) for (const [name, mb] of Object.entries(phase.mb)) peak[name] = Math.max(peak[name] ?? 0, mb);
    const [worst, mb] = Object.entries(peak).sort((a, b) => b[1] - a[1])[0] ?? ['–', NaN];
    out.push(check(`no service's RSS above ${RSS_LIMIT_MB} MB (largest: ${worst})`, mb, RSS_LIMIT_MB, (v) => `${v.toFixed(0)} MB`, '≤ %', NaN, mb <= RSS_LIMIT_MB));
  }
  {
    const loadS = r.load.reduce((t, l) => t + l.seconds, 0);
    // Below full scale the limit applies to the linear projection (the loader's statements are linear in rows).
    const projected = loadS / r.plan.scale;
    const fmtS = (v: number) => `${v.toFixed(0)} s`;
    const label = r.plan.scale === 1 ? 'the loader, full data set' : `the loader, scale ${r.plan.scale} (projected to full scale: ${fmtS(projected)})`;
    out.push(check(label, loadS, LOAD_LIMIT_S, fmtS, r.plan.scale === 1 ? '< %' : '< % at full scale', NaN, projected < LOAD_LIMIT_S));
  }
  return out;
}
