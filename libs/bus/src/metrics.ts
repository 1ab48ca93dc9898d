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


export const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));
