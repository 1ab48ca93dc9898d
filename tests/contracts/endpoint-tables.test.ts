/**
 * The docs' endpoint tables are generated from the route manifest (scripts/endpoint-tables.ts):
 * the committed docs are what the generator writes now, so a new endpoint reaches the docs by
 * `npm run docs:endpoints`, never by a hand edit, and a table cannot go stale unnoticed.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { endpointsOwnedBy, PUBLIC_ENDPOINTS } from '@preflight/contract';
import { endpointTables, withTables } from '../../scripts/endpoint-tables.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('generated endpoint tables', () => {
  it('are committed as scripts/endpoint-tables.ts writes them (else: npm run docs:endpoints)', () => {
    for (const [path, tables] of endpointTables()) {
      const text = readFileSync(join(root, path), 'utf8');
      expect(withTables(path, text, tables), `${path} is stale: run npm run docs:endpoints`).toBe(text);
    }
  });

  it('list every public endpoint with its scope in docs/api.md', () => {
    const scopes = endpointTables().get('docs/api.md')!.get('scopes')!;
    expect(scopes.split('\n').length - 2).toBe(Object.keys(PUBLIC_ENDPOINTS).length);
    expect(scopes).toContain('| POST /api/v1/campaigns/{id}/issues | `write` |');
    expect(scopes).toContain('| GET /api/v1/openapi.json | none (no key) |');
  });

  it("include every service's README, each listing exactly the entries it owns", () => {
    const tables = endpointTables();
    for (const service of ['gateway', 'campaign', 'issue', 'webhook', 'delivery', 'integration', 'console'] as const) {
      const owned = tables.get(`services/${service}/README.md`)?.get('owned');
      expect(owned, service).toBeDefined();
      expect(owned!.split('\n').length - 2, service).toBe(endpointsOwnedBy(service).length);
    }
  });

  it('refuse a file without the markers of its table', () => {
    expect(() => withTables('x.md', 'no markers', new Map([['scopes', '|a|']]))).toThrow(/endpoints:scopes:start/);
  });
});
