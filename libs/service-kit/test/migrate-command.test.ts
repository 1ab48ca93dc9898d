import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL, dropSchemas, isolatedName } from '@preflight/testing';
import { loadMigrateConfig } from '../src/migrate-config.ts';

/**
 * `main.ts migrate` as the chart's hook Job runs it: with DATABASE_URL and DB_SCHEMA and nothing
 * else (no ADMIN_TOKEN, REDIS_URL, NATS_URL, SERVICE_AUTH_KEY or secret key ring), it migrates.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

interface Run {
  code: number | null;
  output: string;
}

/** Runs a service's main.ts with exactly `env` (plus PATH for tsx), as a pod with only that env would. */
function runMain(service: string, args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `services/${service}/src/main.ts`, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolveRun({ code, output }));
  });
}

async function tablesOf(schema: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>('select table_name from information_schema.tables where table_schema = $1 order by 1', [schema]);
    return rows.map((r) => r.table_name);
  } finally {
    await client.end();
  }
}

describe('main.ts migrate reads only the database settings', () => {
  // tsx compiles each service on start: seconds per process on a loaded machine.
  it.each([
    ['gateway', 'api_keys'],
    ['webhook', 'webhooks'],
  ])('%s migrates its schema with DATABASE_URL and DB_SCHEMA only', { timeout: 90_000 }, async (service, table) => {
    const schema = isolatedName(`migrate_${service}`);
    schemas.push(schema);
    const run = await runMain(service, ['migrate'], { DATABASE_URL: TEST_DATABASE_URL, DB_SCHEMA: schema });
    expect(run.output).toContain('"msg":"migrated"');
    expect(run.code, run.output).toBe(0);
    expect(await tablesOf(schema)).toContain(table);
  });

  it('the server and the other commands still read the whole configuration', { timeout: 90_000 }, async () => {
    const env = { DATABASE_URL: TEST_DATABASE_URL, DB_SCHEMA: isolatedName('unused') };
    const [serve, reencrypt] = await Promise.all([runMain('gateway', [], env), runMain('webhook', ['reencrypt-secrets', '--check'], env)]);
    expect(serve.code).toBe(78);
    expect(serve.output).toContain('ADMIN_TOKEN');
    expect(reencrypt.code).toBe(78);
    expect(reencrypt.output).toContain('WEBHOOK_SECRET_KEYS');
  });

  it('defaults DB_SCHEMA to the schema the service owns, and refuses a bad value by name', () => {
    expect(loadMigrateConfig('identity', { DATABASE_URL: TEST_DATABASE_URL })).toMatchObject({ DB_SCHEMA: 'identity', DB_POOL_MAX: 10, LOG_LEVEL: 'info' });
    expect(() => loadMigrateConfig('identity', { DATABASE_URL: 'mysql://x' }, false)).toThrow(/DATABASE_URL/);
  });
});
