import { defineConfig } from 'vitest/config';

// Two projects in one run. "unit" covers libraries, services (in-process against real
// Postgres/Redis/NATS) and tooling checks; "e2e" drives the services as separate processes over
// HTTP. Every file isolates itself (own schema, stream, key prefix, organisation), so files run
// in parallel; two workers match the two cores this project is sized for.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    exclude: ['**/node_modules/**', '**/dist/**'],
    // The JSON report feeds the one-line summary .ci/run prints (scripts/test-summary.mjs).
    reporters: ['default', ['json', { outputFile: '.preflight/test-results.json' }]],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['libs/*/test/**/*.test.ts', 'services/*/test/**/*.test.ts', 'tests/charts/**/*.test.ts', 'tests/proto/**/*.test.ts', 'tests/lint/**/*.test.ts', 'tests/contracts/**/*.test.ts', 'tests/scripts/**/*.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          globalSetup: ['tests/support/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          // The console in Debian's Chromium (tests/browser/harness.ts): each file starts a system of
          // its own; files run one at a time, after the other projects, so page timings and live
          // updates are not fighting the rest of the suite for two cores.
          name: 'browser',
          include: ['tests/browser/**/*.test.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
