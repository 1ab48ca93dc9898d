import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { coresTakenFromRun, type CpuUsage } from './cpu.ts';
import type { MachineFacts } from './machine.ts';

export const fmtRate = (v: number) => (Number.isFinite(v) ? `${Math.round(v).toLocaleString('en-US')}/s` : '–');
export const fmtMs = (v: number) => (Number.isFinite(v) ? `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms` : '–');
export const fmtRatio = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : '–');

export function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(head), `|${head.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n');
}

/** Above this many cores taken by other processes and the hypervisor, a figure says more about the neighbours than about the code. */
export const NOISY_CORES = 0.25;

/** A target of a section measured against a baseline. */
export interface BaselineCheck {
  target: string;
  measured: string;
  baseline: string;
  threshold: string;
  pass: boolean;
  /** Cores other processes used during the windows this check rests on (the worst of them). */
  othersCores: number;
}

/** The Targets table of a section with baselines (`ratio` fills its `ratioHead` column), then how many were met. */
export function targetsSection<C extends BaselineCheck>(checks: C[], ratioHead: string, ratio: (c: C) => string): string[] {
  const result = (c: C) => `${c.pass ? 'pass' : '**FAIL**'}${c.othersCores > NOISY_CORES ? ` (noisy: other processes and the hypervisor took ${c.othersCores.toFixed(2)} cores)` : ''}`;
  const rows = checks.map((c) => [c.target, c.measured, c.baseline, ratio(c), c.threshold, result(c)]);
  return ['### Targets', '', table(['Target', 'Measured', 'Baseline', ratioHead, 'Threshold', 'Result'], rows), '', `${checks.filter((c) => c.pass).length} of ${checks.length} targets met.`];
}

export function machineLine(m: MachineFacts, extra: string[] = []): string {
  return [
    `${m.nproc} CPUs (nproc), ${m.cpuModel}`,
    `${m.memoryGiB} GiB memory`,
    `Node ${m.node}`,
    m.os,
    ...extra,
  ].join('; ');
}

/**
 * The note and, when the machine was not quiet (its load at the start, or what processes outside
 * the benchmark and the hypervisor took during any of the measured `windows`), the caveat on
 * every figure: a quote block preceded by an empty line, or nothing.
 */
export function machineCaveat(m: MachineFacts, windows: Array<CpuUsage | undefined>, note: string | undefined): string[] {
  const others = windows.flatMap((u) => (u ? [coresTakenFromRun(u)] : []));
  const busiest = others.length ? Math.max(...others) : NaN;
  const quiet = m.loadAverage[0] <= 0.25 * m.nproc && !(busiest > 0.1);
  if (!note && quiet) return [];
  const out = [''];
  if (note) out.push(`> ${note}`);
  if (note && !quiet) out.push('>');
  if (!quiet) {
    out.push(
      `> Not a quiet machine: load average ${m.loadAverage[0]} at start, and processes outside the benchmark and the hypervisor (steal) took up to ${Number.isFinite(busiest) ? busiest.toFixed(2) : '?'} cores during a measured window. Compare these figures with the targets only after a rerun on a quiet machine.`,
    );
  }
  return out;
}

const HEADER = `# Benchmarks

Figures from \`npm run bench\` (the harness is \`tests/bench\`; it is not part of \`npm test\`).
Each benchmark rewrites only its own section, between its \`<!-- bench:NAME:start -->\` and
\`<!-- bench:NAME:end -->\` markers, so sections can be added without disturbing the others;
text outside the markers is kept. Figures are only comparable between runs on the same
machine; every section states where and when it was measured, and warns when other work was
running at the time.

Running it:

- \`npm run bench\` from the repository root (turbo runs the \`bench\` script of \`tests\`). It
  needs the same local Postgres, Redis and NATS as the end-to-end tests, starts the services
  itself, stops by itself (about 15 minutes for all three benchmarks on a
  2-core machine; \`--only=\` runs one), and removes every process and schema it created.
- Options go to the workspace script: \`npm run bench -w tests -- --quick\` (short runs to check
  the harness, docs untouched), \`--only=list|create\`, \`--no-write\`, \`--note="…"\`,
  \`--service-env=DB_POOL_MAX=5\` (repeatable; listed in the report), \`--cpu-prof=DIR\` (CPU
  profiles of the services, written when they stop).
- \`npx tsx tests/bench/lib/profile-summary.ts DIR/issue-<pid>.cpuprofile\` summarises a
  profile: self time by package, top functions by self and by inclusive time.
`;

/** Replaces (or appends) one benchmark's section in the docs file, keeping everything else. */
export function writeSection(file: string, id: string, markdown: string): void {
  const start = `<!-- bench:${id}:start -->`;
  const end = `<!-- bench:${id}:end -->`;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : HEADER;
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i >= 0 && j > i) text = text.slice(0, i) + block + text.slice(j + end.length);
  else text = `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, text);
}
