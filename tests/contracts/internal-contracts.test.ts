/**
 * The internal contract snapshots (scripts/internal-contracts.ts; docs/development.md, "Internal
 * contracts"): committed as the script writes them, and the breaking-change rule. The owners'
 * side, each real route answering what its caller parses, is checked in the owner service's
 * test folder (services/<owner>/test/internal-contract.test.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { breakingChanges, internalContracts } from '../../scripts/internal-contracts.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const committed = (path: string) => (existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : undefined);

describe('contracts/internal', () => {
  it('has no breaking change against the committed snapshot (else: see docs/development.md, "Internal contracts")', () => {
    const breaking = internalContracts().flatMap(([path, text]) => {
      const before = committed(path);
      return before === undefined ? [] : breakingChanges(JSON.parse(before), JSON.parse(text)).map((b) => `${path}: ${b}`);
    });
    expect(breaking).toEqual([]);
  });

  it('is committed as scripts/internal-contracts.ts writes it (else: npm run contracts:internal)', () => {
    for (const [path, text] of internalContracts()) expect(committed(path), path).toBe(text);
  });
});

describe('breakingChanges', () => {
  const obj = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required });
  const str = { type: 'string' };
  const doc = (request: unknown, response: unknown) => ({ routes: { 'POST /x': { request, response } } });

  it('flags a request field no longer sent, nested ones included', () => {
    expect(breakingChanges(doc(obj({ a: str, b: str }), null), doc(obj({ a: str }), null))).toEqual(['POST /x: request.b is no longer sent']);
    const nested = (fields: Record<string, unknown>) => obj({ list: { type: 'array', items: obj(fields) } });
    expect(breakingChanges(doc(nested({ a: str, b: str }), null), doc(nested({ a: str }), null))).toEqual(['POST /x: request.list[].b is no longer sent']);
  });

  it('flags a response field the caller newly requires, including a field new to it', () => {
    expect(breakingChanges(doc(null, obj({ a: str }, [])), doc(null, obj({ a: str }, ['a'])))).toEqual(['POST /x: response.a is newly required in the answer']);
    expect(breakingChanges(doc(null, obj({ a: str }, ['a'])), doc(null, obj({ a: str, b: str }, ['a', 'b'])))).toEqual(['POST /x: response.b is newly required in the answer']);
  });

  it('lets compatible changes through: a new request field, a new optional or dropped response field, a route no longer called', () => {
    expect(breakingChanges(doc(obj({ a: str }), obj({ a: str, b: str }, ['a', 'b'])), doc(obj({ a: str, c: str }), obj({ a: str, d: str }, ['a'])))).toEqual([]);
    expect(breakingChanges(doc(obj({ a: str }), null), { routes: {} })).toEqual([]);
  });
});
