import { Counter, Gauge, Histogram, Registry } from 'prom-client';

// Get-or-create, so two relays or consumers in one process (tests, or two consumers of one
// service) share the metric instead of failing on a duplicate registration.
export function counter<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
  return (registry.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter({ name, help, labelNames, registers: [registry] });
}

export function gauge<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[] = []): Gauge<L> {
  return (registry.getSingleMetric(name) as Gauge<L> | undefined) ?? new Gauge({ name, help, labelNames, registers: [registry] });
}

export function histogram<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[], buckets: number[]): Histogram<L> {
  return (registry.getSingleMetric(name) as Histogram<L> | undefined) ?? new Histogram({ name, help, labelNames, buckets, registers: [registry] });
}

/** A sleep that `stop()` cuts short. */
export class Sleeper {
  #timer: NodeJS.Timeout | undefined;
  #resolve: (() => void) | undefined;
  #pending = false;

  /** Waits `ms`, or less if `wake()` is called meanwhile (or was called since the last wait). */
  wait(ms: number): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      this.#resolve = resolve;
      this.#timer = setTimeout(() => this.wake(), ms);
    }).then(() => {
      this.#pending = false;
    });
  }

  wake(): void {
    clearTimeout(this.#timer);
    const resolve = this.#resolve;
    this.#resolve = undefined;
    if (resolve) resolve();
    else this.#pending = true;
  }
}

export const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));
