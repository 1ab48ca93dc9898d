import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings for the services that read Postgres results on every request or message
 * (campaign, issue, webhook, delivery; not the gateway, see its main.ts), applied by
 * `applyRuntimeFlags()` as the first statement of their main.ts, so they hold however the
 * process is launched (npm start, the tests, the container's `node main.js`, the chart's
 * migration job); Node does not accept the flag in NODE_OPTIONS.
 *
 * `--no-allocation-site-pretenuring`: V8 watches, per allocation site, how many of its objects
 * survive a young-generation GC, and once ~85 % do while the young generation is at its full
 * size (a burst of slow requests, a seeding run) it allocates that site's objects straight in
 * the old generation from then on. pg makes every query's result row array and row objects at
 * the same few sites, so after one such burst the containers of every later result were born
 * old, and everything they held (the rows, their strings and dates) survived each young GC
 * through them until the next full GC (docs/benchmarks-history.md, "2026-11-24 night"). The
 * price: an object that does live long is copied
 * once more before it is promoted, which the services' few long-lived caches hardly feel.
 */
export const RUNTIME_V8_FLAGS: readonly string[] = ['--no-allocation-site-pretenuring'];

/** Applies `RUNTIME_V8_FLAGS` to this process. Call before the service starts working. */
export function applyRuntimeFlags(): void {
  for (const flag of RUNTIME_V8_FLAGS) setFlagsFromString(flag);
}
