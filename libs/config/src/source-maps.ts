/**
 * Formats one stack trace now, so that with source maps on (the images run node with
 * `--enable-source-maps`) the service's bundle map is parsed while it starts, not in the
 * middle of its work. Node parses a file's source map the first time a stack trace through it
 * is formatted, synchronously, and for a bundle that stalls the event loop for tens of ms: in
 * the delivery service that happened at a hanging endpoint's first timeouts, in the healthy
 * endpoints' latency (docs/benchmarks-history.md, "2026-11-25 morning, later").
 * Call it from main.ts, before the service starts listening; without source maps it does
 * nothing.
 */
export function loadSourceMapsNow(): void {
  if (!process.sourceMapsEnabled) return;
  // Reading `stack` is what makes V8 format it (through Node's source-map support).
  void new Error('loading source maps at start').stack;
}
