import { readFileSync } from 'node:fs';

/**
 * Resident memory of processes, from /proc/<pid>/status (VmRSS), sampled on a timer: the
 * largest each group reached while the sampler ran. A process that exited reads as 0.
 */
export type RssGroups = Record<string, number[]>;

/** VmRSS of `pid` in MB (10^6 bytes' worth of KiB × 1024 / 10^6), 0 when it cannot be read. */
export function rssMb(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return line ? (Number(line.split(/\s+/)[1]) * 1024) / 1e6 : 0;
  } catch {
    return 0;
  }
}

export interface RssSampler {
  /** The largest RSS (MB) of each group's largest process since the start (or the last `take`), and resets. */
  take(): Record<string, number>;
  stop(): void;
}

export function rssSampler(groups: () => RssGroups, everyMs = 250): RssSampler {
  let peak: Record<string, number> = {};
  const sample = () => {
    for (const [name, pids] of Object.entries(groups())) {
      const mb = Math.max(0, ...pids.map(rssMb));
      peak[name] = Math.max(peak[name] ?? 0, mb);
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  timer.unref();
  return {
    take() {
      sample();
      const out = peak;
      peak = {};
      return out;
    },
    stop: () => clearInterval(timer),
  };
}
