/**
 * Writes contracts/internal/<caller>-to-<owner>.json: a snapshot, as JSON Schema, of what each
 * service calling another's /internal routes sends and expects back, generated from the caller's
 * zod schemas (libs/contract/src/internal.ts). Run after changing them:
 *
 *   npm run contracts:internal            # rewrite the files
 *   npm run contracts:internal -- --check # write nothing; exit 1 if a file is stale or the change is breaking
 *
 * tests/contracts makes the same comparisons and applies `breakingChanges` (docs/development-reference.md,
 * "Internal contracts") against the committed snapshot and against the snapshot at a base ref
 * (`baseRef`, the one scripts/check-proto.sh would use), so a breaking change committed together
 * with its regenerated snapshot is still caught.
 */
import { spawnSync } from 'node:child_process';
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

/** Every schema node by location (a field, an array's items `[]`, a record's values `{}`), alternatives folded into theirs. */
function nodes(schema: Json | null | undefined, at: string, out: Map<string, Json> = new Map(), record = true): Map<string, Json> {
  if (!schema || typeof schema !== 'object') return out;
  if (record) out.set(at, schema);
  for (const [key, sub] of Object.entries((schema.properties ?? {}) as Json)) nodes(sub as Json, `${at}.${key}`, out);
  if (schema.items) nodes(schema.items, `${at}[]`, out);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') nodes(schema.additionalProperties, `${at}{}`, out);
  for (const alt of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) nodes(alt, at, out, false);
  return out;
}

/** One alternative of a node, by JSON type ('any' when it names none), with what narrows it. */
type Branch = Json & { type: string };
const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems'];
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems'];

function branches(schema: Json): Branch[] {
  const alts = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])] as Json[];
  if (alts.length) return alts.flatMap(branches);
  const values = 'const' in schema ? [schema.const] : schema.enum;
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : values ? [...new Set(values.map((v: unknown) => (v === null ? 'null' : typeof v)))] as string[] : ['any'];
  return types.map((type) => ({ ...schema, type, enum: values?.filter((v: unknown) => (v === null ? 'null' : typeof v) === type || type === 'integer' || type === 'number') }));
}

/** Whether every value `b` admits, `a` admits too (as far as types, enums, formats, patterns and bounds tell). */
function covers(a: Branch, b: Branch): boolean {
  if (a.type !== 'any' && a.type !== b.type && !(a.type === 'number' && b.type === 'integer')) return false;
  if (a.enum && !(b.enum && b.enum.every((v: unknown) => a.enum.some((w: unknown) => JSON.stringify(w) === JSON.stringify(v))))) return false;
  for (const key of ['format', 'pattern']) if (a[key] !== undefined && a[key] !== b[key]) return false;
  for (const key of LOWER_BOUNDS) if (a[key] !== undefined && !(b[key] !== undefined && b[key] >= a[key])) return false;
  for (const key of UPPER_BOUNDS) if (a[key] !== undefined && !(b[key] !== undefined && b[key] <= a[key])) return false;
  return true;
}

const shown = (bs: Branch[]) => bs.map((b) => (b.enum ? `${b.type}(${b.enum.map((v: unknown) => JSON.stringify(v)).join('|')})` : b.type)).join(' | ');

/**
 * The breaking changes from `before` to `after` (two snapshots of one contract) for versions
 * deployed independently, in either order (docs/development-reference.md, "Internal contracts"):
 *  - a request field removed (an owner still deployed may require it) or newly required (a caller
 *    still deployed does not send it);
 *  - a response field removed (a caller still deployed reads it; the owner may stop sending it)
 *    or newly required (an owner still deployed may not send it);
 *  - a field's type, enum, format, pattern or bounds narrowed: a request then refuses what
 *    deployed callers send, an answer what deployed owners send.
 * Anything else is compatible: a new optional field, a widened type, a route no longer called.
 */
export function breakingChanges(before: Json, after: Json): string[] {
  const found: string[] = [];
  for (const [route, was] of Object.entries((before.routes ?? {}) as Json)) {
    const now = (after.routes ?? {})[route];
    if (!now) continue; // the caller no longer calls it: nothing it sends or reads can break
    for (const part of ['request', 'response'] as const) {
      const objsBefore = objects(was[part], part);
      const objsNow = objects(now[part], part);
      for (const [at, obj] of objsBefore) {
        const nowObj = objsNow.get(at);
        for (const key of Object.keys(obj.properties ?? {})) if (!nowObj?.properties?.[key]) found.push(`${route}: ${at}.${key} was removed`);
      }
      for (const [at, obj] of objsNow) {
        const required = new Set<string>(objsBefore.get(at)?.required ?? []);
        for (const key of obj.required ?? []) if (!required.has(key)) found.push(`${route}: ${at}.${key} is newly required`);
      }
      const nodesNow = nodes(now[part], part);
      for (const [at, node] of nodes(was[part], part)) {
        const nowNode = nodesNow.get(at);
        if (!nowNode) continue;
        const [wasBranches, nowBranches] = [branches(node), branches(nowNode)];
        if (!wasBranches.every((b) => nowBranches.some((a) => covers(a, b)))) found.push(`${route}: ${at} narrowed from ${shown(wasBranches)} to ${shown(nowBranches)}`);
      }
    }
  }
  return found;
}

/**
 * The commit the snapshots are also compared with: INTERNAL_CONTRACTS_BASE_REF, else
 * PROTO_BASE_REF (CI passes the pull request's base), else what scripts/base-ref.sh picks for
 * scripts/check-proto.sh too (`main` on another branch, HEAD~1 on main). Comparing with the
 * committed files alone misses a breaking change committed with its regenerated snapshot.
 */
export function baseRef(cwd = root, env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.INTERNAL_CONTRACTS_BASE_REF || env.PROTO_BASE_REF;
  if (explicit) return explicit;
  const r = spawnSync('bash', [join(root, 'scripts', 'base-ref.sh')], { cwd, encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : 'HEAD~1';
}

function git(cwd: string, args: string[]): string | undefined {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

export interface BaseComparison {
  ref: string;
  /** Why there is nothing to compare with (the ref is not in this clone: first commit, shallow clone). */
  skipped?: string;
  breaking: string[];
}

/**
 * The breaking changes of `snapshots` ([path, text], as `internalContracts()` writes them)
 * against each file at `ref`; a file the ref does not have yet is new, so nothing breaks.
 */
export function breakingAgainst(ref: string, snapshots: Array<[string, string]>, cwd = root): BaseComparison {
  if (!git(cwd, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])) return { ref, skipped: `${ref} is not in this clone (first commit or shallow clone)`, breaking: [] };
  const breaking = snapshots.flatMap(([path, text]) => {
    const before = git(cwd, ['show', `${ref}:${path}`]);
    return before === undefined ? [] : breakingChanges(JSON.parse(before), JSON.parse(text)).map((b) => `${path} (against ${ref}): ${b}`);
  });
  return { ref, breaking };
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const stale: string[] = [];
  const breaking: string[] = [];
  const snapshots = internalContracts();
  for (const [path, text] of snapshots) {
    const file = join(root, path);
    const committed = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (committed === text) continue;
    stale.push(path);
    if (committed !== undefined) breaking.push(...breakingChanges(JSON.parse(committed), JSON.parse(text)).map((b) => `${path}: ${b}`));
    if (!check) writeFileSync(file, text);
  }
  const base = breakingAgainst(baseRef(), snapshots);
  if (base.skipped) process.stdout.write(`breaking check against the base skipped: ${base.skipped}\n`);
  breaking.push(...base.breaking);
  if (breaking.length) process.stderr.write(`breaking internal contract changes (docs/development-reference.md, "Internal contracts"):\n  ${breaking.join('\n  ')}\n`);
  if (check && (stale.length || breaking.length)) {
    if (stale.length) process.stderr.write(`stale (run npm run contracts:internal): ${stale.join(', ')}\n`);
    process.exit(1);
  }
  process.stdout.write(stale.length ? `${check ? 'stale' : 'wrote'}: ${stale.join(', ')}\n` : 'internal contracts up to date\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
