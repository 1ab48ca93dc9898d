/** Latency samples in milliseconds, summarised exactly (the runs are small enough to sort). */
export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarise(samples: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  const n = sorted.length;
  if (n === 0) return { count: 0, p50: NaN, p90: NaN, p99: NaN, max: NaN, mean: NaN };
  // Nearest-rank percentile: the smallest sample with at least p% of the samples at or below it.
  const pct = (p: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))]!;
  let sum = 0;
  for (const v of sorted) sum += v;
  return { count: n, p50: pct(50), p90: pct(90), p99: pct(99), max: sorted[n - 1]!, mean: sum / n };
}

/** A growable list of numbers without boxing every sample. */
export class Samples {
  private data = new Float64Array(1024);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }

  values(): Float64Array {
    return this.data.subarray(0, this.length);
  }
}
