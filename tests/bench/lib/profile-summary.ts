/**
 * `tsx bench/lib/profile-summary.ts FILE.cpuprofile [N]`: where a service's CPU time went —
 * self time grouped by package (node_modules/<pkg>, the workspace's own sources, node
 * internals, GC), the top N functions by self time, and the top N by inclusive time (the
 * function and everything it called; each function counted once per sample).
 *
 * The profile samples wall-clock time while the thread is not idle, so on an oversubscribed
 * machine a syscall that wakes another process (a socket write) also collects the time the
 * thread then waited for a CPU: read the /proc CPU figures of the report beside it.
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
const parentOf = new Map<number, number>();
if (!file) {
  console.error('usage: tsx bench/lib/profile-summary.ts FILE.cpuprofile [N]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

function groupOf(url: string, fn: string): string {
  if (fn === '(idle)' || fn === '(program)' || fn === '(garbage collector)') return fn;
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.startsWith('node:') || url === '') return 'node internals / native';
  const ws = /\/(libs|services|tests|scripts)\/([^/]+)\//.exec(url);
  if (ws) return `${ws[1]}/${ws[2]}`;
  return url;
}

const label = (n: Node) => `${n.callFrame.functionName || '(anonymous)'}  ${n.callFrame.url.replace(/^.*\/(node_modules|libs|services)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
const fnTotals = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, us] of selfUs) {
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parentOf.get(cur)) {
    const n = byId.get(cur)!;
    if (n.callFrame.functionName === '(root)' || n.callFrame.functionName === '(idle)') break;
    const k = label(n);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + us);
  }
}
const groupTotals = new Map<string, number>();
let total = 0;
let busy = 0;
for (const [id, us] of selfUs) {
  const n = byId.get(id)!;
  const { functionName, url } = n.callFrame;
  const key = label(n);
  fnTotals.set(key, (fnTotals.get(key) ?? 0) + us);
  const g = groupOf(url, functionName);
  groupTotals.set(g, (groupTotals.get(g) ?? 0) + us);
  total += us;
  if (functionName !== '(idle)') busy += us;
}
const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
console.log(`${file}: ${(total / 1e6).toFixed(1)} s profiled, ${(busy / 1e6).toFixed(1)} s not idle (percentages of the latter)\n`);
console.log('self time by package:');
for (const [g, us] of [...groupTotals].sort((a, b) => b[1] - a[1]).slice(0, 25)) if (g !== '(idle)') console.log(`  ${pct(us)}  ${g}`);
console.log(`\ntop ${top} functions by self time:`);
for (const [k, us] of [...fnTotals].sort((a, b) => b[1] - a[1]).slice(0, top)) if (!k.startsWith('(idle)')) console.log(`  ${pct(us)}  ${k}`);
console.log(`\ntop ${top} functions by inclusive time:`);
for (const [k, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(us)}  ${k}`);
