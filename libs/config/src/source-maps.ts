/**
 * Formats one stack trace now, so that with source maps on (the images run node with
 * `--enable-source-maps`) the service's bundle map is parsed while it starts, not in the
 * middle of its work. Node parses a file's source map the first time a stack trace through it
 * is formatted, synchronously: ~30 ms of one core for a service bundle on the benchmark
 * machine. In the delivery service that first stack was read when a hanging endpoint's first
 * attempts timed out (undici reads the abort error's stack as it destroys the socket): each
 * replica's event loop stood still for ~30 ms, and the healthy endpoints' p99 over those
 * seconds rose from 5–9 ms to 11–81 ms (docs/benchmarks-history.md, "2026-11-25 morning, later").
 * Call it from main.ts, before the service starts listening; without source maps it does
 * nothing.
 */
export function loadSourceMapsNow(): void {
  if (!process.sourceMapsEnabled) return;
  // Reading `stack` is what makes V8 format it (through Node's source-map support).
  void new Error('loading source maps at start').stack;
}
