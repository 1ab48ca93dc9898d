import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

// The import-boundary rules of eslint.config.js, checked on in-memory snippets linted as if they
// lived at a given path. The boundaries plugin only judges imports it can resolve, so every
// snippet imports a file that exists (checked first): a rename must fail here, not pass quietly.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BOUNDARY_RULES = ['boundaries/dependencies', 'no-restricted-imports'];

let eslint: ESLint;
let domainStorageExceptions: string[];
beforeAll(async () => {
  eslint = new ESLint({ cwd: root });
  // A plain-JS module without types: imported by URL so tsc does not look for declarations.
  const config = (await import(new URL('../../eslint.config.js', import.meta.url).href)) as { DOMAIN_STORAGE_EXCEPTIONS: string[] };
  domainStorageExceptions = config.DOMAIN_STORAGE_EXCEPTIONS;
});

/** The boundary findings for `import { x } from '<source>'` in a file at `filePath` (relative to the root). */
async function boundaryFindings(filePath: string, source: string): Promise<string[]> {
  if (source.startsWith('.')) expect(existsSync(resolve(root, dirname(filePath), source)), `${source} from ${filePath} exists`).toBe(true);
  const [result] = await eslint.lintText(`import { x } from '${source}';\nexport const y = x;\n`, { filePath: join(root, filePath) });
  expect(result?.messages.filter((m) => m.fatal)).toEqual([]);
  return (result?.messages ?? []).filter((m) => BOUNDARY_RULES.includes(m.ruleId ?? '')).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('import boundaries', () => {
  it('a service does not import another service by relative path', async () => {
    expect(await boundaryFindings('services/issue/src/domain/snippet.ts', '../../../campaign/src/domain/campaign-lifecycle.ts')).toEqual([
      'boundaries/dependencies: services/issue must not import another service (services/campaign)',
    ]);
    expect(await boundaryFindings('services/issue/test/snippet.test.ts', '../../campaign/src/storage/schema.ts')).toEqual([
      'boundaries/dependencies: services/issue must not import another service (services/campaign)',
    ]);
  });

  it('a service does not import another service by package name', async () => {
    for (const source of ['@preflight/campaign', '@preflight/campaign/src/domain/campaign-lifecycle.ts']) {
      const findings = await boundaryFindings('services/issue/src/routes/snippet.ts', source);
      expect(findings).toHaveLength(1);
      expect(findings[0]).toMatch(/^no-restricted-imports: .*never import a service package/);
    }
  });

  it('a library does not import a service', async () => {
    expect(await boundaryFindings('libs/bus/src/snippet.ts', '../../../services/issue/src/domain/issue-events.ts')).toEqual([
      'boundaries/dependencies: libs/ must not import a service (services/issue)',
    ]);
    expect(await boundaryFindings('libs/bus/src/snippet.ts', '@preflight/issue')).toHaveLength(1);
  });

  it("a service's domain/ does not import its storage/", async () => {
    expect(await boundaryFindings('services/issue/src/domain/snippet.ts', '../storage/issues.ts')).toEqual([
      'boundaries/dependencies: domain/ must not import storage/ (row-to-JSON views live in views/, beside the routes)',
    ]);
    expect(await boundaryFindings('services/campaign/src/domain/nested/snippet.ts', '../../storage/schema.ts')).toHaveLength(1);
  });

  it('allows the layering the rules describe', async () => {
    const allowed: Array<[string, string]> = [
      ['services/issue/src/views/snippet.ts', '../storage/issues.ts'],
      ['services/issue/src/routes/snippet.ts', '../views/issue-view.ts'],
      ['services/issue/src/storage/snippet.ts', '../domain/issue-workflow.ts'],
      ['services/issue/src/domain/snippet.ts', './issue-workflow.ts'],
      ['services/issue/src/routes/snippet.ts', '@preflight/contract'],
      ['services/issue/test/snippet.test.ts', '../src/storage/issues.ts'],
      ['libs/bus/src/snippet.ts', '../../db/src/index.ts'],
      ['tests/bench/lib/snippet.ts', '../../../services/issue/src/domain/issue-events.ts'],
    ];
    for (const [filePath, source] of allowed) expect(await boundaryFindings(filePath, source), `${source} from ${filePath}`).toEqual([]);
  });

  it('an excepted file is excused from domain -> storage only', async () => {
    for (const excepted of domainStorageExceptions) {
      const service = excepted.split('/')[1];
      const storage = readdirSync(join(root, 'services', service ?? '', 'src/storage'))[0];
      expect(await boundaryFindings(excepted, `../storage/${storage}`)).toEqual([]);
      expect(await boundaryFindings(excepted, '../../../campaign/src/domain/campaign-lifecycle.ts')).toHaveLength(1);
    }
  });

  it('applies both rules to every service and library', async () => {
    const dirs = ['services', 'libs'].flatMap((top) => readdirSync(join(root, top)).map((name) => `${top}/${name}`));
    expect(dirs.length).toBeGreaterThan(10);
    for (const dir of dirs) {
      const config = (await eslint.calculateConfigForFile(join(root, dir, 'src/domain/snippet.ts'))) as { rules: Record<string, unknown[]> };
      for (const rule of BOUNDARY_RULES) expect(config.rules[rule]?.[0], `${rule} in ${dir}`).toBe(2);
    }
  });
});
