import pg from 'pg';
import { TEST_DATABASE_URL } from '@preflight/testing';
import { postgresBackendsOf, type CpuGroups } from './cpu.ts';

/**
 * Where the database time of a window went: samples pg_stat_activity every `intervalMs` for the
 * client backends serving each group's processes and counts, per group, the backends that were
 * in a statement or holding a transaction open, by what they were doing (`running` on CPU or
 * the wait event, e.g. `Lock:object`, `LWLock:WALWrite`, `IO:WALSync`, `Client:ClientRead`
 * while a transaction waits for its client). Backend-seconds = samples × the time between them, so a figure
 * divided by the window's operations is the database time each one took.
 */
export interface PgActivity {
  intervalMs: number;
  samples: number;
  /** Backend-seconds per group and activity. */
  seconds: Record<string, Record<string, number>>;
}

export interface PgActivitySampler {
  /** Finds the backends (call after the warm-up, when pools are open) and starts sampling. */
  start(): Promise<void>;
  stop(): Promise<PgActivity>;
}

export function pgActivitySampler(groups: CpuGroups, intervalMs = 20): PgActivitySampler {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, application_name: 'bench-pg-activity' });
  const seconds: Record<string, Record<string, number>> = {};
  let samples = 0;
  let running = false;
  let loop: Promise<void> | undefined;
  let starting: Promise<void> | undefined;
  return {
    start() {
      starting ??= begin();
      return starting;
    },
    async stop() {
      await starting?.catch(() => undefined);
      running = false;
      await loop?.catch(() => undefined);
      await client.end().catch(() => undefined);
      return { intervalMs, samples, seconds };
    },
  };

  async function begin(): Promise<void> {
    const backends = await postgresBackendsOf(groups);
    await client.connect();
    running = true;
    const pids = [...backends.keys()];
    let last = performance.now();
    loop = (async () => {
      while (running) {
        const t0 = performance.now();
        // Each sample stands for the time since the one before (the interval, or longer when the machine is busy).
        const dt = (t0 - last) / 1000;
        last = t0;
        const { rows } = await client.query<{ pid: number; state: string | null; wtype: string | null; wevent: string | null }>(
          'select pid, state, wait_event_type as wtype, wait_event as wevent from pg_stat_activity where pid = any($1)',
          [pids],
        );
        samples += 1;
        for (const r of rows) {
          if (r.state === 'idle' || r.state === null) continue;
          const what = r.state === 'active' ? (r.wtype ? `${r.wtype}:${r.wevent}` : 'running') : `${r.state}${r.wtype && r.wtype !== 'Client' ? ` ${r.wtype}:${r.wevent}` : ''}`;
          const g = (seconds[backends.get(r.pid)!] ??= {});
          g[what] = (g[what] ?? 0) + dt;
        }
        await new Promise((r) => setTimeout(r, Math.max(0, intervalMs - (performance.now() - t0))));
      }
    })();
  }
}
