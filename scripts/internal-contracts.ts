/**
 * Writes contracts/internal/<caller>-to-<owner>.json: a snapshot, as JSON Schema, of what each
 * service calling another's /internal routes sends and expects back, generated from the caller's
 * zod schemas (libs/contract/src/internal.ts). Run after changing them:
 *
 *   npm run contracts:internal            # rewrite the files
 *   npm run contracts:internal -- --check # write nothing; exit 1 if a file is stale or the change is breaking
 *
 * tests/contracts makes the same comparison and applies `breakingChanges` (docs/development.md,
 * "Internal contracts"): against the committed snapshot, a change is breaking when a request
 * field the caller sent disappears or a response field becomes required that was not before.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { INTERNAL_CONTRACTS } from '@preflight/contract';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CONTRACTS_DIR = 'contracts/internal';

type Json = Record<string, any>;

const schemaOf = (schema: z.ZodType | undefined, io: 'input' | 'output') =>
  schema ? z.toJSONSchema(schema, { io, unrepresentable: 'any' }) : null;

/** Every snapshot file: [path relative to the repository root, its text]. */
export function internalContracts(): Array<[string, string]> {
  return Object.entries(INTERNAL_CONTRACTS).map(([name, c]) => {
    const doc = {
      caller: c.caller,
      owner: c.owner,
      routes: Object.fromEntries(
        c.routes.map((r) => [`${r.method} ${r.path}`, { request: schemaOf(r.request, 'input'), response: schemaOf(r.response, 'output') }]),
      ),
    };
    return [`${CONTRACTS_DIR}/${name}.json`, `${JSON.stringify(doc, null, 2)}\n`];
  });
}

/** Object schemas reachable in one (anyOf/oneOf for nullable, items for arrays), by location. */
function objects(schema: Json | null | undefined, at: string, out: Map<string, Json> = new Map()): Map<string, Json> {
  if (!schema || typeof schema !== 'object') return out;
  if (schema.properties) {
    out.set(at, schema);
    for (const [key, sub] of Object.entries(schema.properties as Json)) objects(sub as Json, `${at}.${key}`, out);
  }
  if (schema.items) objects(schema.items, `${at}[]`, out);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') objects(schema.additionalProperties, `${at}{}`, out);
  for (const alt of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) objects(alt, at, out);
  return out;
}

/**
 * The breaking changes from `before` to `after` (two snapshot documents of one contract). A
 * deployed owner was built against `before`, so a caller built against `after` breaks it when:
 *  - a request field the caller sent (`before`) is no longer sent (the owner may require it);
 *  - a response field becomes required that was optional or absent (the owner may not send it).
 * Anything else (a new optional field, a field the caller stops reading, a route it stops calling) is compatible.
 */
export function breakingChanges(before: Json, after: Json): string[] {
  const found: string[] = [];
  for (const [route, was] of Object.entries((before.routes ?? {}) as Json)) {
    const now = (after.routes ?? {})[route];
    if (!now) continue; // the caller no longer calls it: nothing it sends or reads can break
    const sentBefore = objects(was.request, 'request');
    const sentNow = objects(now.request, 'request');
    for (const [at, obj] of sentBefore) {
      const nowObj = sentNow.get(at);
      for (const key of Object.keys(obj.properties ?? {})) {
        if (!nowObj?.properties?.[key]) found.push(`${route}: ${at}.${key} is no longer sent`);
      }
    }
    const readBefore = objects(was.response, 'response');
    for (const [at, obj] of objects(now.response, 'response')) {
      const required = new Set<string>(readBefore.get(at)?.required ?? []);
      for (const key of obj.required ?? []) if (!required.has(key)) found.push(`${route}: ${at}.${key} is newly required in the answer`);
    }
  }
  return found;
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const stale: string[] = [];
  const breaking: string[] = [];
  for (const [path, text] of internalContracts()) {
    const file = join(root, path);
    const committed = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (committed === text) continue;
    stale.push(path);
    if (committed !== undefined) breaking.push(...breakingChanges(JSON.parse(committed), JSON.parse(text)).map((b) => `${path}: ${b}`));
    if (!check) writeFileSync(file, text);
  }
  if (breaking.length) process.stderr.write(`breaking internal contract changes (docs/development.md, "Internal contracts"):\n  ${breaking.join('\n  ')}\n`);
  if (check && stale.length) {
    process.stderr.write(`stale (run npm run contracts:internal): ${stale.join(', ')}\n`);
    process.exit(1);
  }
  process.stdout.write(stale.length ? `${check ? 'stale' : 'wrote'}: ${stale.join(', ')}\n` : 'internal contracts up to date\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
