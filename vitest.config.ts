import { defineConfig } from 'vitest/config';

// One run over every workspace: unit, integration (real Postgres/Redis/NATS) and end-to-end
// suites. Each test file isolates itself (own schema, stream, key prefix), so files run in
// parallel; two workers match the two cores this project is sized for.
export default defineConfig({
  test: {
    include: ['libs/*/src/**/*.test.ts', 'libs/*/test/**/*.test.ts', 'services/*/src/**/*.test.ts', 'services/*/test/**/*.test.ts', 'tests/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 90_000,
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.preflight/test-results.json' }]] : ['default'],
  },
});
