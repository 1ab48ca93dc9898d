/**
 * Packages every chart as an OCI-ready artifact: `helm package` of the library chart, each service
 * chart and the umbrella (with its dependencies bundled), each at its own Chart.yaml version, into
 * dist/charts/, then prints the `helm push` commands. Nothing is pushed: the commands are for the
 * release pipeline (docs/operations.md, "Publishing the charts").
 *
 *   npx tsx scripts/release-charts.ts                     # dist/charts, oci://registry.example.com/preflight/charts
 *   npx tsx scripts/release-charts.ts --out /tmp/c --registry oci://ghcr.io/acme/charts
 *   npx tsx scripts/release-charts.ts --only issue        # one service's chart (and the library)
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'yaml';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** In packaging order: the library first, the umbrella last (it bundles the others). */
export const CHARTS = ['preflight-lib', 'gateway', 'campaign', 'issue', 'webhook', 'delivery', 'integration', 'console', 'preflight'] as const;

export interface PackagedChart {
  chart: string;
  version: string;
  appVersion?: string;
  file: string;
  push: string;
}

export function releaseCharts(opts: { out: string; registry: string; only?: string[] }): PackagedChart[] {
  const helm = execFileSync(process.execPath, [join(root, 'scripts/helm.mjs'), '--path'], { encoding: 'utf8' }).trim();
  // A copy: `helm dependency build` writes charts/<chart>/charts/*.tgz.
  const work = mkdtempSync(join(tmpdir(), 'preflight-release-'));
  try {
    cpSync(join(root, 'charts'), join(work, 'charts'), { recursive: true, filter: (src) => !src.endsWith('.tgz') });
    mkdirSync(opts.out, { recursive: true });
    const wanted = opts.only?.length ? CHARTS.filter((c) => c === 'preflight-lib' || opts.only!.includes(c)) : [...CHARTS];
    const packaged: PackagedChart[] = [];
    for (const chart of wanted) {
      const dir = join(work, 'charts', chart);
      const meta = parse(readFileSync(join(dir, 'Chart.yaml'), 'utf8')) as { version: string; appVersion?: string; dependencies?: unknown[] };
      if (meta.dependencies?.length) execFileSync(helm, ['dependency', 'build', dir], { stdio: 'pipe' });
      execFileSync(helm, ['package', dir, '--destination', opts.out], { stdio: 'pipe' });
      const file = join(opts.out, `${chart}-${meta.version}.tgz`);
      if (!existsSync(file)) throw new Error(`helm package did not write ${file}`);
      packaged.push({ chart, version: meta.version, appVersion: meta.appVersion, file, push: `helm push ${file} ${opts.registry}` });
    }
    return packaged;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const out = resolve(arg('out') ?? join(root, 'dist/charts'));
  const registry = arg('registry') ?? 'oci://registry.example.com/preflight/charts';
  const only = arg('only')?.split(',');
  const packaged = releaseCharts({ out, registry, only });
  for (const p of packaged) process.stdout.write(`packaged ${p.chart} ${p.version}${p.appVersion ? ` (app ${p.appVersion})` : ''}: ${p.file}\n`);
  process.stdout.write(`\n# push (helm registry login ${registry.replace(/^oci:\/\//, '').split('/')[0]} first):\n`);
  for (const p of packaged) process.stdout.write(`${p.push}\n`);
}
