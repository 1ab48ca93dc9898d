/**
 * The internal contract snapshots (scripts/internal-contracts.ts; docs/development-reference.md, "Internal
 * contracts"): committed as the script writes them, no breaking change against the committed
 * snapshot nor against the one at the base ref (as scripts/check-proto.sh picks it), and the
 * breaking-change rule. The owners' side, each real route answering what its caller parses, is
 * checked in the owner service's test folder (services/<owner>/test/internal-contract.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { baseRef, breakingAgainst, breakingChanges, internalContracts } from '../../scripts/internal-contracts.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const committed = (path: string) => (existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : undefined);

describe('contracts/internal', () => {
  it('has no breaking change against the committed snapshot (else: see docs/development-reference.md, "Internal contracts")', () => {
    const breaking = internalContracts().flatMap(([path, text]) => {
      const before = committed(path);
      return before === undefined ? [] : breakingChanges(JSON.parse(before), JSON.parse(text)).map((b) => `${path}: ${b}`);
    });
    expect(breaking).toEqual([]);
  });

  it('has no breaking change against the snapshot at the base ref (skipped by the script only when the ref is not in the clone)', () => {
    expect(breakingAgainst(baseRef(), internalContracts()).breaking).toEqual([]);
  });

  it('is committed as scripts/internal-contracts.ts writes it (else: npm run contracts:internal)', () => {
    for (const [path, text] of internalContracts()) expect(committed(path), path).toBe(text);
  });
});

const obj = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required });
const str = { type: 'string' };
const doc = (request: unknown, response: unknown) => ({ routes: { 'POST /x': { request, response } } });

describe('breakingChanges', () => {
  it('flags a field removed from a request or an answer, nested ones included', () => {
    expect(breakingChanges(doc(obj({ a: str, b: str }), null), doc(obj({ a: str }), null))).toEqual(['POST /x: request.b was removed']);
    const nested = (fields: Record<string, unknown>) => obj({ list: { type: 'array', items: obj(fields) } });
    expect(breakingChanges(doc(nested({ a: str, b: str }), null), doc(nested({ a: str }), null))).toEqual(['POST /x: request.list[].b was removed']);
    expect(breakingChanges(doc(null, obj({ a: str, b: str }, ['a'])), doc(null, obj({ a: str }, ['a'])))).toEqual(['POST /x: response.b was removed']);
  });

  it('flags a field newly required in a request or an answer, including a field new to it', () => {
    expect(breakingChanges(doc(obj({ a: str }), null), doc(obj({ a: str }, ['a']), null))).toEqual(['POST /x: request.a is newly required']);
    expect(breakingChanges(doc(null, obj({ a: str }, [])), doc(null, obj({ a: str }, ['a'])))).toEqual(['POST /x: response.a is newly required']);
    expect(breakingChanges(doc(null, obj({ a: str }, ['a'])), doc(null, obj({ a: str, b: str }, ['a', 'b'])))).toEqual(['POST /x: response.b is newly required']);
  });

  it('flags a type, enum, format or bound narrowed', () => {
    const field = (a: unknown) => doc(obj({ a }), obj({ a }));
    const narrowed = (before: unknown, after: unknown) => breakingChanges(field(before), field(after));
    expect(narrowed(str, { type: 'integer' })).toEqual(['POST /x: request.a narrowed from string to integer', 'POST /x: response.a narrowed from string to integer']);
    expect(narrowed({ type: 'number' }, { type: 'integer' })).toHaveLength(2);
    expect(narrowed({ type: ['string', 'null'] }, str)).toHaveLength(2);
    expect(narrowed({ anyOf: [str, { type: 'null' }] }, str)).toHaveLength(2);
    expect(narrowed({ type: 'string', enum: ['open', 'closed'] }, { type: 'string', enum: ['open'] })).toEqual([
      'POST /x: request.a narrowed from string("open"|"closed") to string("open")',
      'POST /x: response.a narrowed from string("open"|"closed") to string("open")',
    ]);
    expect(narrowed(str, { type: 'string', enum: ['open'] })).toHaveLength(2);
    expect(narrowed(str, { type: 'string', format: 'uuid' })).toHaveLength(2);
    expect(narrowed({ type: 'integer', minimum: 0 }, { type: 'integer', minimum: 1 })).toHaveLength(2);
    expect(narrowed({ type: 'array', items: str }, { type: 'array', items: { type: 'string', minLength: 1 } })).toEqual([
      'POST /x: request.a[] narrowed from string to string',
      'POST /x: response.a[] narrowed from string to string',
    ]);
  });

  it('lets compatible changes through: an added optional field, a widened type or enum, a route no longer called', () => {
    expect(breakingChanges(doc(obj({ a: str }, ['a']), obj({ a: str }, ['a'])), doc(obj({ a: str, c: str }, ['a']), obj({ a: str, d: str }, ['a'])))).toEqual([]);
    const field = (a: unknown) => doc(obj({ a }), obj({ a }));
    expect(breakingChanges(field({ type: 'integer', minimum: 1 }), field({ type: 'number' }))).toEqual([]);
    expect(breakingChanges(field({ type: 'string', enum: ['open'] }), field({ anyOf: [{ type: 'string', enum: ['open', 'closed'] }, { type: 'null' }] }))).toEqual([]);
    expect(breakingChanges(doc(obj({ a: str }), null), { routes: {} })).toEqual([]);
  });
});

describe('the base ref comparison', () => {
  const repos: string[] = [];
  afterAll(() => {
    for (const dir of repos) rmSync(dir, { recursive: true, force: true });
  });
  const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const PATH = 'contracts/internal/a-to-b.json';
  const text = (fields: Record<string, unknown>) => `${JSON.stringify(doc(obj(fields), null), null, 2)}\n`;
  function repo(...versions: string[]): string {
    const dir = mkdtempSync(join(tmpdir(), 'contracts-base-'));
    repos.push(dir);
    git(dir, 'init', '-q');
    mkdirSync(join(dir, 'contracts/internal'), { recursive: true });
    for (const [i, version] of versions.entries()) {
      writeFileSync(join(dir, PATH), version);
      git(dir, 'add', PATH);
      git(dir, 'commit', '-q', '-m', `v${i}`);
    }
    return dir;
  }

  it('catches a breaking change committed together with its regenerated snapshot', () => {
    const after = text({ a: str });
    const dir = repo(text({ a: str, b: str }), after);
    expect(baseRef(dir, {})).toBe('HEAD~1');
    // The committed file equals what the script writes, so only the base ref sees the break.
    expect(breakingAgainst('HEAD~1', [[PATH, after]], dir)).toEqual({ ref: 'HEAD~1', breaking: [`${PATH} (against HEAD~1): POST /x: request.b was removed`] });
    expect(breakingAgainst('HEAD~1', [[PATH, text({ a: str, b: str, c: str })]], dir).breaking).toEqual([]);
  });

  it('on a branch, compares with main; an explicit INTERNAL_CONTRACTS_BASE_REF or PROTO_BASE_REF wins', () => {
    const dir = repo(text({ a: str }));
    git(dir, 'checkout', '-q', '-b', 'feature');
    expect(baseRef(dir, {})).toBe('main');
    expect(baseRef(dir, { PROTO_BASE_REF: 'v1' })).toBe('v1');
    expect(baseRef(dir, { INTERNAL_CONTRACTS_BASE_REF: 'v2', PROTO_BASE_REF: 'v1' })).toBe('v2');
  });

  it('skips with the reason when the ref is not in the clone (first commit, shallow clone), and a file new since the ref breaks nothing', () => {
    const first = repo(text({ a: str }));
    expect(breakingAgainst('HEAD~1', [[PATH, text({})]], first)).toMatchObject({ skipped: 'HEAD~1 is not in this clone (first commit or shallow clone)', breaking: [] });
    const source = repo(text({ a: str }), text({ a: str, b: str }));
    const shallow = mkdtempSync(join(tmpdir(), 'contracts-shallow-'));
    repos.push(shallow);
    git(shallow, 'clone', '-q', '--depth', '1', `file://${source}`, '.');
    expect(breakingAgainst(baseRef(shallow, {}), [[PATH, text({})]], shallow).skipped).toMatch(/not in this clone/);
    expect(breakingAgainst('HEAD', [['contracts/internal/new.json', text({})]], source).breaking).toEqual([]);
  });
});
