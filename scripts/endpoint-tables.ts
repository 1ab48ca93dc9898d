/**
 * Writes the endpoint tables of the docs from the route manifest (libs/contract/src/manifest),
 * between `<!-- endpoints:NAME:start -->` and `<!-- endpoints:NAME:end -->` markers, so adding
 * an endpoint never means editing a table by hand:
 *
 *   npm run docs:endpoints            # rewrite the tables
 *   npm run docs:endpoints -- --check # write nothing; exit 1 if a table is stale
 *
 * Tables: docs/api.md `scopes` (the public API's scopes), and each services/<name>/README.md
 * `owned` (the endpoints the service answers, with their route files). tests/contracts checks
 * the same, so a manifest change without regenerating fails CI.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { endpointList, endpointsOwnedBy, openApiPath, type Endpoint, type ServiceName } from '@preflight/contract';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Every service that owns an endpoint: each README lists its own. */
const SERVICES: ServiceName[] = [...new Set(endpointList().map((e) => e.owner))];

function access(e: Endpoint): string {
  switch (e.auth) {
    case 'api-key':
      return e.scope === 'any' ? 'API key, any scope' : `API key, \`${e.scope}\``;
    case 'admin':
      return e.members ? `operator; members: ${e.members === 'Admin' ? 'Owners, Admins' : 'every member'}` : 'operator';
    case 'none':
      return e.limitBy ? `none (rate-limited per \`${e.limitBy}\`)` : 'none';
    case 'internal':
      return `internal: ${e.callers.join(', ')}`;
  }
}

const success = (e: Endpoint) => String(e.response?.status ?? 200);

/** The public API's scope table of docs/api.md. */
function scopesTable(): string {
  const rows = endpointList()
    .filter((e) => e.path.startsWith('/api/v1/'))
    .map((e) => `| ${e.method} ${openApiPath(e.path)} | ${e.auth === 'api-key' ? (e.scope === 'any' ? 'any valid key' : `\`${e.scope}\``) : 'none (no key)'} |`);
  return ['| Method and path | Scope |', '|---|---|', ...rows].join('\n');
}

/** A service's own endpoints, for its README. */
function ownedTable(service: ServiceName): string {
  const rows = endpointsOwnedBy(service).map((e) => `| ${e.method} ${e.path} | ${access(e)} | ${success(e)} | \`${e.id}\` | \`${e.file}.ts\` |`);
  return ['| Method and path | Who may call | Success | Manifest entry | Route file |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** Every generated table: file (from the repo root) → table name → text. */
export function endpointTables(): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>([['docs/api.md', new Map([['scopes', scopesTable()]])]]);
  for (const s of SERVICES) out.set(`services/${s}/README.md`, new Map([['owned', ownedTable(s)]]));
  return out;
}

/** `text` with each named table put between its markers; throws when a file lacks a table's markers. */
export function withTables(path: string, text: string, tables: Map<string, string>): string {
  let result = text;
  for (const [name, table] of tables) {
    const start = `<!-- endpoints:${name}:start -->`;
    const end = `<!-- endpoints:${name}:end -->`;
    const from = result.indexOf(start);
    const to = result.indexOf(end);
    if (from < 0 || to < from) throw new Error(`${path}: no ${start} … ${end} markers`);
    result = `${result.slice(0, from + start.length)}\n${table}\n${result.slice(to)}`;
  }
  return result;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const [path, tables] of endpointTables()) {
    const file = join(root, path);
    const before = readFileSync(file, 'utf8');
    const after = withTables(path, before, tables);
    if (before === after) continue;
    stale += 1;
    if (check) console.error(`${path}: endpoint tables are stale (npm run docs:endpoints)`);
    else writeFileSync(file, after);
  }
  if (check && stale > 0) process.exit(1);
}
