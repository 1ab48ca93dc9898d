import { readFileSync } from 'node:fs';
import os from 'node:os';

/** What the figures were measured on; a benchmark figure means nothing without it. */
export interface MachineFacts {
  nproc: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  os: string;
  date: string;
  loadAverage: [number, number, number];
}

function cpuModel(): string {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    if (line) return line.split(':').slice(1).join(':').trim();
  } catch {
    // not Linux
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

export function machineFacts(): MachineFacts {
  return {
    nproc: os.availableParallelism(),
    cpuModel: cpuModel(),
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    date: new Date().toISOString(),
    loadAverage: os.loadavg().map((v) => Math.round(v * 100) / 100) as [number, number, number],
  };
}
