import { fmtMs, fmtRate, fmtRatio, table } from '../lib/report.ts';
import { systemPreamble } from '../lib/system-markdown.ts';
import type { OpenLoopResult } from '../lib/open-loop.ts';
import type { ScaleReport } from './bench.ts';

/** The scale section of docs/benchmarks.md (`<!-- bench:scale:start -->` … `end`). */

const n = (v: number) => v.toLocaleString('en-US');
const p99 = (o: OpenLoopResult) => `${fmtMs(o.latency.p99)}${o.failed ? ` (**${o.failed} failed**)` : ''}`;

export function scaleMarkdown(r: ScaleReport, command: string, note: string | undefined): string {
  const p = r.plan;
  const s = r.settings;
  const out: string[] = [];
  out.push(`## Scale: a year of a large customer (issue 25)`);
  out.push('');
  out.push(`\`${command}\`, ${r.machine.date}. The loader (tests/bench/scale/load) writes straight into each service's schema of a test system the services migrated: ` +
    `${n(p.orgs)} organisations, ${n(p.campaigns)} campaigns (${n(p.bigOrgCampaigns)} in one organisation), ${n(p.issues)} issues with 3–5 history entries each ` +
    `(${n(p.bigCampaignIssues)} in one campaign, ${n(p.openCampaignIssues)} open in another), their campaign directory, sequence counters and readiness projection, ` +
    `${p.webhooks} webhook endpoints in one organisation (made through the admin API), ${n(p.attempts)} delivery attempts over ${p.logDays} days` +
    `${p.scale === 1 ? '' : ` — **scale ${p.scale}** of the issue's data set`}. The small data set of the same run: another organisation with ${p.small.issues} issues in one campaign, ` +
    `${p.small.openIssues} open in another, one endpoint with ${p.small.attempts} attempts. Every read goes through the gateway (API key; the operator token for admin reads), open loop at a fixed rate, ` +
    `${s.warmupS} s warm-up + ${s.durationS} s measured, latency from each request's due time.`);
  out.push('');
  // The load average is the only noise measure here (no CPU meter per window): a busy machine is said so.
  const busiest = Math.max(r.machine.loadAverage[0], ...r.rss.map((x) => x.load1));
  const caveat = busiest > 0.25 * r.machine.nproc
    ? ['', `> Not a quiet machine: the 1-minute load average was ${r.machine.loadAverage[0]} at the start and up to ${busiest.toFixed(2)} at the end of a phase (Memory table). Compare these figures with the targets only after a rerun on a quiet machine.`]
    : [];
  out.push(...systemPreamble({ ...r, settings: { ...s, compareDurationS: 0, rate: s.listRate } }, note, caveat));
  out.push('');
  out.push('### Loading');
  out.push('');
  out.push(table(['step', 'rows', 'seconds', 'rows/s'], r.load.map((l) => [l.step, l.rows ? n(l.rows) : '–', l.seconds.toFixed(1), l.rows ? fmtRate(l.rows / l.seconds) : '–'])));
  out.push('');
  out.push(`On disk afterwards (tables, indexes, TOAST): ${Object.entries(r.sizes).filter(([, mb]) => mb >= 1).map(([k, mb]) => `${k} ${n(Math.round(mb))} MB`).join(', ')}.`);
  out.push('');
  out.push('### Reads, large vs small data set');
  out.push('');
  out.push(table(
    ['read', 'rate', 'large p50', 'large p99', 'small p50', 'small p99', 'p99 ratio'],
    r.reads.map((x) => [
      `${x.label}${x.pages ? ` (page ${n(x.pages.big)} vs ${n(x.pages.small)})` : ''}`,
      `${x.rate}/s`,
      fmtMs(x.big.latency.p50),
      p99(x.big),
      fmtMs(x.small.latency.p50),
      p99(x.small),
      fmtRatio(x.big.latency.p99 / x.small.latency.p99),
    ]),
  ));
  out.push('');
  out.push('### Plans of the reads on the loaded data (EXPLAIN ANALYZE, once, warm)');
  out.push('');
  out.push(table(['statement', 'plan', 'time', 'buffers', 'sequential scans'], r.plans.map((x) => [x.label, x.shape, fmtMs(x.executionMs), n(x.buffers), x.seqScans.length ? `**${x.seqScans.join(', ')}**` : 'none'])));
  out.push('');
  out.push('### Writes and projections');
  out.push('');
  const c = r.create;
  const rd = r.readiness;
  out.push(table(['operation', 'large', 'small / empty', 'ratio'], [
    [`create, ${s.createRate}/s open loop: p99`, p99(c.big.latency), p99(c.empty.latency), fmtRatio(c.big.latency.latency.p99 / c.empty.latency.latency.p99)],
    [`create, ${s.createConnections} connections closed loop: throughput (p99)`, `${fmtRate(c.big.throughput.rps)} (${fmtMs(c.big.throughput.latency.p99)})`, `${fmtRate(c.empty.throughput.rps)} (${fmtMs(c.empty.throughput.latency.p99)})`, fmtRatio(c.big.throughput.rps / c.empty.throughput.rps)],
    [`readiness consumer per IssueCreated (${s.fileRate} issues/s; ${n(p.openCampaignIssues)} vs ${p.small.openIssues} open)`, `${fmtMs(rd.big.perEventMs)} (${rd.big.events}/${rd.big.filed} events)`, `${fmtMs(rd.small.perEventMs)} (${rd.small.events}/${rd.small.filed} events)`, fmtRatio(rd.big.perEventMs / rd.small.perEventMs)],
  ]));
  out.push('');
  out.push('### Delivery fan-out to 50 endpoints of one organisation');
  out.push('');
  const f = r.fanout;
  out.push(table(['', 'before the log was loaded', `with ${n(p.attempts)} attempts in the log`], [
    [`p50 / p99 at ${s.fanoutRate} events/s (${n(s.fanoutRate * p.webhooks)} deliveries/s)`, `${fmtMs(f.before.latency.latency.p50)} / ${fmtMs(f.before.latency.latency.p99)}`, `${fmtMs(f.after.latency.latency.p50)} / ${fmtMs(f.after.latency.latency.p99)}`],
    ['arrived / expected', `${n(f.before.latency.arrived)} / ${n(f.before.latency.expected)}`, `${n(f.after.latency.arrived)} / ${n(f.after.latency.expected)}`],
    [`sustained (feed window ${n(s.feedWindow)})`, `${fmtRate(f.before.sustained.deliveredPerS)}`, `${fmtRate(f.after.sustained.deliveredPerS)}`],
  ]));
  out.push('');
  const w = f.sweep;
  out.push(`Retention sweep: the delivery service restarted with \`DELIVERY_LOG_RETENTION_DAYS=${p.logDays - 1}\`, swept every second: ${n(w.deleted)} of ${n(w.due)} attempts deleted in ` +
    `${Number.isFinite(w.sweepS) ? `${w.sweepS.toFixed(1)} s` : `more than the ${s.sweepWindowS} s window`} after it was ready. Fan-out at ${s.fanoutRate} events/s meanwhile: p99 ${fmtMs(w.during.p99)} ` +
    `(${n(w.during.count)} deliveries), against ${fmtMs(w.control.p99)} (${n(w.control.count)}) in the same seconds after a restart without a sweep (a restarted process is slow for a few seconds either way).`);
  out.push('');
  out.push('### Memory: largest RSS per service, by phase (MB)');
  out.push('');
  const services = [...new Set(r.rss.flatMap((x) => Object.keys(x.mb)))];
  out.push(table(['phase', ...services, 'load average (1 min) at its end'], r.rss.map((x) => [x.phase, ...services.map((sv) => (x.mb[sv] ?? NaN).toFixed(0)), x.load1.toFixed(2)])));
  out.push('');
  out.push('Rerun: `npm run bench -w tests -- --only=scale` (the full data set by default: on this machine about 2 minutes of loading and 4.3 GB of disk, see Loading); `--scale=0.01` for a small copy, `--quick` for short windows. ' +
    'It removes every schema, stream and process it made, also on Ctrl-C; with `SCALE_BENCH_KEEP=1` in its environment it leaves the loaded schemas behind (renamed `<schema>_kept`, names printed) for EXPLAIN work.');
  return out.join('\n');
}
