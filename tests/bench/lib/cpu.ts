import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import pg from 'pg';
import { TEST_DATABASE_URL } from '@preflight/testing';

/**
 * Where the CPU went during a measured window, from /proc (Linux only; elsewhere the figures
 * are NaN or zero): user+system time of the processes we know by pid (services, baseline, this
 * harness), of the Postgres backends serving exactly those processes (matched through their
 * TCP client ports and pg_stat_activity) plus Postgres's own background processes, of Redis,
 * and of the whole machine from /proc/stat — so "other" is everything else running at the
 * time, including other people's tests and their Postgres backends.
 */
export type CpuGroups = Record<string, number[]>;
const TICKS_PER_S = 100; // USER_HZ; 100 on every Linux this runs on
const PG_PORT = Number(new URL(TEST_DATABASE_URL).port || 5432);

interface Snapshot {
  wallMs: number;
  machineBusyTicks: number;
  stolenTicks: number;
  ticks: Map<number, { group: string; ticks: number }>;
}

export interface CpuUsage {
  wallS: number;
  /**
   * CPU seconds per group, plus `stolen` (time the hypervisor ran something else while this
   * machine's vCPUs wanted to run: every process here stood still meanwhile) and `other` (the
   * rest of the machine's busy time, which nobody above accounts for).
   */
  seconds: Record<string, number>;
  /** Cores busy on average over the window, machine-wide. */
  coresBusy: number;
}

function procTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** Machine-wide ticks from /proc/stat: busy (everything but idle and iowait, steal included) and stolen. */
function machineTicks(): { busy: number; stolen: number } {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal guest guest_nice; guest time is already in user.
    const total = cpu.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - (cpu[3] ?? 0) - (cpu[4] ?? 0), stolen: cpu[7] ?? 0 };
  } catch {
    return { busy: NaN, stolen: NaN };
  }
}

function numericDirs(dir: string): number[] {
  try {
    return readdirSync(dir)
      .filter((e) => /^\d+$/.test(e))
      .map(Number);
  } catch {
    return [];
  }
}

/** Local ports of the TCP connections `pids` hold open to Postgres, each with the pid holding it. */
function postgresClientPorts(pids: number[]): Map<number, number> {
  const inodes = new Map<string, number>();
  for (const pid of pids) {
    for (const fd of numericDirs(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.set(m[1]!, pid);
      } catch {
        // closed meanwhile
      }
    }
  }
  const ports = new Map<number, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines: string[];
    try {
      lines = readFileSync(table, 'utf8').split('\n').slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || !inodes.has(f[9]!)) continue;
      const local = parseInt(f[1]!.split(':')[1]!, 16);
      const remote = parseInt(f[2]!.split(':')[1]!, 16);
      if (remote === PG_PORT) ports.set(local, inodes.get(f[9]!)!);
    }
  }
  return ports;
}

/**
 * The pids to meter: those given; the Postgres backends whose client is one of them, and
 * Postgres's background processes (checkpointer, WAL writer…), as `postgres`; Redis; the NATS
 * server, as `nats` (unless a group names it already), which carries every event the services
 * publish and so is part of the system under test, not "other".
 */
async function resolvePids(groups: CpuGroups, postgresByClient = false): Promise<Map<number, string>> {
  const pids = new Map<number, string>();
  for (const [group, list] of Object.entries(groups)) for (const pid of list) if (pid > 0) pids.set(pid, group);
  for (const pid of numericDirs('/proc')) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (comm === 'redis-server') pids.set(pid, 'redis');
      else if (comm === 'nats-server' && !pids.has(pid)) pids.set(pid, 'nats');
    } catch {
      // gone
    }
  }
  const ports = postgresClientPorts([...pids.keys()]);
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, application_name: 'bench-cpu-meter' });
  try {
    await client.connect();
    const { rows } = await client.query<{ pid: number; backend_type: string; client_port: number | null; me: boolean }>(
      'select pid, backend_type, client_port, pid = pg_backend_pid() as me from pg_stat_activity',
    );
    for (const r of rows) {
      if (r.me) continue;
      const client = r.backend_type === 'client backend' && r.client_port !== null ? ports.get(r.client_port) : undefined;
      const ours = r.backend_type === 'client backend' ? client !== undefined : true;
      if (ours) pids.set(r.pid, postgresByClient && client !== undefined ? `postgres (${pids.get(client)})` : 'postgres');
    }
  } catch {
    // Postgres not reachable from here: its CPU ends up under "other".
  } finally {
    await client.end().catch(() => undefined);
  }
  return pids;
}

function snapshot(pids: Map<number, string>): Snapshot {
  const ticks = new Map<number, { group: string; ticks: number }>();
  for (const [pid, group] of pids) {
    const t = procTicks(pid);
    if (t !== undefined) ticks.set(pid, { group, ticks: t });
  }
  const machine = machineTicks();
  return { wallMs: performance.now(), machineBusyTicks: machine.busy, stolenTicks: machine.stolen, ticks };
}

/** Cores taken from the run during a window by processes outside it and by the hypervisor (steal); NaN when unmeasured. */
export function coresTakenFromRun(u: CpuUsage | undefined): number {
  return u ? ((u.seconds.other ?? 0) + (u.seconds.stolen ?? 0)) / u.wallS : NaN;
}

export interface CpuMeter {
  /** Finds the processes to meter (a /proc scan and a Postgres query); call it just before the window. */
  prepare(): Promise<void>;
  /** Cheap (reads a few /proc files): safe at the first send of an open loop. */
  start(): void;
  stop(): void;
  readonly usage: CpuUsage | undefined;
}

/**
 * One measured window. Call `prepare()` after the warm-up (so the pool connections it opened
 * are found), `start()` when the window opens and `stop()` when it closes. A Postgres backend
 * that connects after `prepare()` is counted under "other". With `postgresByClient`, a client
 * backend is billed to `postgres (<group>)`, the group of the process it serves, and only
 * Postgres's background processes stay under `postgres`.
 */
export function cpuMeter(groups: CpuGroups, opts: { postgresByClient?: boolean } = {}): CpuMeter {
  let pids = new Map<number, string>();
  let before: Snapshot | undefined;
  let usage: CpuUsage | undefined;
  return {
    async prepare() {
      pids = await resolvePids(groups, opts.postgresByClient);
    },
    start() {
      before = snapshot(pids);
    },
    stop() {
      if (!before) return;
      const after = snapshot(pids);
      const seconds: Record<string, number> = {};
      for (const g of [...Object.keys(groups), 'postgres', 'redis', 'nats']) seconds[g] = 0;
      let attributed = 0;
      for (const [pid, a] of after.ticks) {
        const b = before.ticks.get(pid);
        if (!b) continue;
        const d = (a.ticks - b.ticks) / TICKS_PER_S;
        seconds[a.group] = (seconds[a.group] ?? 0) + d;
        attributed += d;
      }
      const wallS = (after.wallMs - before.wallMs) / 1000;
      const busyS = (after.machineBusyTicks - before.machineBusyTicks) / TICKS_PER_S;
      seconds.stolen = (after.stolenTicks - before.stolenTicks) / TICKS_PER_S;
      seconds.other = Math.max(0, busyS - seconds.stolen - attributed);
      usage = { wallS, seconds, coresBusy: busyS / wallS };
    },
    get usage() {
      return usage;
    },
  };
}

/**
 * Waits until the processes in `groups` (and our Postgres backends, and Redis) are close to
 * idle — e.g. until the event consumers have worked off what the previous phase produced — so
 * one phase's aftermath is not billed to the next. Gives up after `maxS`; returns the seconds
 * waited and whether the system did settle.
 */
export async function settle(groups: CpuGroups, opts: { idleCores?: number; sampleMs?: number; maxS?: number } = {}): Promise<{ waitedS: number; settled: boolean }> {
  const idle = opts.idleCores ?? 0.15;
  const sampleMs = opts.sampleMs ?? 1000;
  const maxMs = (opts.maxS ?? 60) * 1000;
  const t0 = performance.now();
  while (performance.now() - t0 < maxMs) {
    const meter = cpuMeter(groups);
    await meter.prepare();
    meter.start();
    await new Promise((r) => setTimeout(r, sampleMs));
    meter.stop();
    const u = meter.usage;
    if (!u) break;
    const ours = Object.entries(u.seconds)
      .filter(([g]) => g !== 'other' && g !== 'stolen')
      .reduce((a, [, v]) => a + v, 0);
    if (ours / u.wallS <= idle) return { waitedS: (performance.now() - t0) / 1000, settled: true };
  }
  return { waitedS: (performance.now() - t0) / 1000, settled: false };
}

/**
 * The Postgres client backends serving each group's processes (backend pid → group), found as
 * `cpuMeter` finds them (TCP client ports and pg_stat_activity): for samplers of what those
 * backends are doing (lib/pg-activity.ts).
 */
export async function postgresBackendsOf(groups: CpuGroups): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (const [pid, label] of await resolvePids(groups, true)) {
    const m = /^postgres \((.+)\)$/.exec(label);
    if (m) out.set(pid, m[1]!);
  }
  return out;
}
