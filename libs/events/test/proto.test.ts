import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// buf is local (node_modules/.bin) and needs no network for any of this: the well-known
// types ship with it, the plugin is local, and check-proto.sh reads its baseline from git.
const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../../..');
const buf = join(root, 'node_modules/.bin/buf');
const temps: string[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'preflight-proto-'));
  temps.push(dir);
  return dir;
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name))).sort();
}

afterAll(async () => {
  await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
});

describe('proto module', () => {
  it('passes buf lint and the breaking check (scripts/check-proto.sh)', async () => {
    const { stdout } = await run('bash', [join(root, 'scripts/check-proto.sh')], { cwd: root });
    expect(stdout).toContain('buf lint proto');
  });

  it('the breaking check catches a removed field', async () => {
    const dir = await tempDir();
    await cp(join(root, 'proto'), join(dir, 'proto'), { recursive: true });
    const file = join(dir, 'proto/preflight/issue/v1/events.proto');
    const src = await readFile(file, 'utf8');
    await writeFile(file, src.replace(/\n\s*optional string reporter = 11;/, ''));
    const result = await run(buf, ['breaking', join(dir, 'proto'), '--against', join(root, 'proto')]).then(
      () => ({ code: 0, stdout: '' }),
      (err: { code: number; stdout: string }) => err,
    );
    expect(result.code).not.toBe(0);
    expect(result.stdout).toMatch(/reporter|deleted/i);
  });

  it('generated TypeScript in libs/events/src/gen is up to date', async () => {
    const out = await tempDir();
    await run(buf, ['generate', 'proto', '-o', out], { cwd: root });
    const fresh = join(out, 'libs/events/src/gen');
    const committed = join(root, 'libs/events/src/gen');
    const files = await listFiles(fresh);
    expect(await listFiles(committed)).toEqual(files);
    for (const f of files) {
      expect(await readFile(join(committed, f), 'utf8'), `${f} is stale: run npm run generate -w libs/events`).toBe(await readFile(join(fresh, f), 'utf8'));
    }
  });
});
