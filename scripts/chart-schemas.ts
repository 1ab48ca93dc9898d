/**
 * Writes charts/<service>/values.schema.json for every service chart: the shared schema
 * (scripts/chart-schemas/service-values.ts) plus the service's own `config` keys, derived from
 * the zod shape in services/<service>/src/config.ts. Run after changing either:
 *
 *   npm run charts:schemas            # rewrite the files
 *   npm run charts:schemas -- --check # write nothing; exit 1 if a file is stale
 *
 * tests/charts makes the same comparison, so a config change without regenerating fails CI.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { envValueSchemas } from './chart-schemas/env-values.ts';
import { configSchema, serviceValuesSchema, type JsonSchema } from './chart-schemas/service-values.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The service charts: charts/<name> for each services/<name> with a src/config.ts. */
export function serviceCharts(): string[] {
  return readdirSync(join(root, 'charts'))
    .filter((name) => existsSync(join(root, 'charts', name, 'values.yaml')) && existsSync(join(root, 'services', name, 'src/config.ts')))
    .sort();
}

/** Every service chart's values.schema.json as it should be: path (from the repo root) -> text. */
export async function chartSchemas(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const service of serviceCharts()) {
    const schema = structuredClone(serviceValuesSchema) as JsonSchema & { properties: Record<string, JsonSchema> };
    schema.properties.config = { ...configSchema, properties: envValueSchemas(service, await configShape(service)) };
    out.set(`charts/${service}/values.schema.json`, `${JSON.stringify(schema, null, 2)}\n`);
  }
  return out;
}

/** The service's environment shape: its one export that is an object of zod schemas. */
async function configShape(service: string): Promise<z.ZodRawShape> {
  const file = join(root, 'services', service, 'src/config.ts');
  const exports = Object.entries((await import(pathToFileURL(file).href)) as Record<string, unknown>);
  let shapes = exports.filter(([, value]) => isZodShape(value));
  // Several shapes: the service's own is named <service>ConfigShape or <service>Env.
  if (shapes.length > 1) shapes = shapes.filter(([name]) => /(ConfigShape|Env)$/.test(name));
  if (shapes.length !== 1) throw new Error(`${file}: expected one exported zod config shape, found ${shapes.map(([n]) => n).join(', ') || 'none'}`);
  return shapes[0]![1] as z.ZodRawShape;
}

function isZodShape(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || '_zod' in value) return false;
  const fields = Object.values(value);
  return fields.length > 0 && fields.every((f) => typeof f === 'object' && f !== null && '_zod' in f);
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const stale: string[] = [];
  for (const [path, text] of await chartSchemas()) {
    const file = join(root, path);
    if (existsSync(file) && readFileSync(file, 'utf8') === text) continue;
    stale.push(path);
    if (!check) writeFileSync(file, text);
  }
  if (check && stale.length) {
    process.stderr.write(`stale (run npm run charts:schemas): ${stale.join(', ')}\n`);
    process.exit(1);
  }
  process.stdout.write(stale.length ? `${check ? 'stale' : 'wrote'}: ${stale.join(', ')}\n` : 'chart schemas up to date\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
