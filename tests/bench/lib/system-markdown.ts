import type { CpuUsage } from './cpu.ts';
import { fmtMs, fmtRate, machineLine, table } from './report.ts';
import type { SystemBenchSettings, SystemReport, ThroughputWindow } from './system-bench.ts';

/** The markdown the sections of the whole-system benchmarks (delivery, integrations) share. */

/** Cores a group kept busy on average over a window. */
export const cores = (u: CpuUsage | undefined, g: string) => (u ? (u.seconds[g] ?? 0) / u.wallS : NaN);
export const fmtCores = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : '–');

/**
 * The lines after a section's introduction: the machine (with its load averages), the note,
 * `warnings` (lines of their own), the service settings and the Targets table.
 */
export function systemPreamble(r: SystemReport<SystemBenchSettings>, note: string | undefined, warnings: string[] = []): string[] {
  const out: string[] = [];
  out.push(`Machine: ${machineLine(r.machine, [`load average ${r.machine.loadAverage.join(' / ')} at start, ${r.loadAtEnd.join(' / ')} at end`])}.`);
  if (note) out.push(`\n> ${note}`);
  out.push(...warnings);
  out.push('');
  out.push(`Service settings: ${Object.entries(r.serviceSettings).map(([k, v]) => `\`${k}=${v}\``).join(', ')}${r.settings.cpuProfDir ? '; **services under the CPU profiler** (`--cpu-prof`)' : ''}.`);
  out.push('');
  out.push('### Targets');
  out.push('');
  out.push(table(['target', 'measured', 'threshold', 'ratio', ''], r.checks.map((c) => [c.target, c.measured, c.threshold, c.ratio, c.pass ? 'pass' : '**miss**'])));
  return out;
}

/** What a sustained window's details say besides the outstanding work, the drain and the backlog. */
export interface SustainedCell {
  /** First: what was offered. */
  offered: string;
  /** After the outstanding work, when there is more to say. */
  more?: string;
  /** What its errors were errors of (`publish`, `filing`). */
  errorsOf: string;
}

/** The Throughput table: a row a window, `rate` its arrivals per second, details by kind (sustained or bare loop). */
export function throughputTable<T extends ThroughputWindow>(windows: T[], rateHead: string, rate: (t: T) => number, sustained: (t: T) => SustainedCell): string {
  return table(
    ['path', 'in flight', rateHead, 'details'],
    windows.map((t) => {
      if (t.name !== 'sustained') return [t.label, String(t.concurrency), fmtRate(rate(t)), `request → answer p50 ${fmtMs(t.latency?.p50 ?? NaN)}, p99 ${fmtMs(t.latency?.p99 ?? NaN)}; ${t.errors} errors`];
      const c = sustained(t);
      const outstanding = `outstanding ${t.outstandingStart} → ${t.outstandingEnd} (mean ${Math.round(t.outstandingMean ?? NaN)}, max ${t.outstandingMax})`;
      const drained = `drained ${Number.isFinite(t.drainS) ? `in ${t.drainS!.toFixed(1)} s` : 'NOT within the timeout'}; backlog ${t.bounded ? 'bounded' : '**not bounded**'}`;
      return [t.label, String(t.concurrency), fmtRate(rate(t)), [c.offered, outstanding, ...(c.more ? [c.more] : []), drained, `${t.errors} ${c.errorsOf} errors`].join('; ')];
    }),
  );
}

/** The CPU table: cores busy on average in each window, by group. */
export function cpuTable(windows: Array<{ label: string; cpu: CpuUsage | undefined }>, groups: string[]): string {
  return table(
    ['window', ...groups],
    windows.map((w) => [w.label, ...groups.map((g) => fmtCores(cores(w.cpu, g)))]),
  );
}
