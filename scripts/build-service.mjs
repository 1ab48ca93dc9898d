#!/usr/bin/env node
// Bundles one service for its image: services/<name>/src/main.ts → services/<name>/dist/main.js
// (and dist/chunks/*.js, loaded by it), plus services/<name>/public → dist/public when it exists.
// Workspace libraries (@preflight/*, consumed from their TypeScript source) are bundled in;
// every third-party package stays external and is installed in the image by
// `npm ci --omit=dev --workspace services/<name>`.
//
//   node scripts/build-service.mjs gateway [campaign ...]   (no argument: every service)
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const servicesDir = join(root, 'services');

const names = process.argv.slice(2);
const services = names.length > 0 ? names : readdirSync(servicesDir).filter((n) => existsSync(join(servicesDir, n, 'package.json')));

// Keeps bare imports external unless they name a workspace package, which is bundled from source.
const externalThirdParty = {
  name: 'external-third-party',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@preflight/')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

let failed = false;
for (const name of services) {
  const dir = join(servicesDir, name);
  const entry = join(dir, 'src', 'main.ts');
  if (!existsSync(entry)) {
    console.error(`build-service: ${entry} does not exist`);
    failed = true;
    continue;
  }
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const started = Date.now();
  rmSync(join(dir, 'dist'), { recursive: true, force: true });
  const result = await build({
    entryPoints: [entry],
    // Split at main.ts's dynamic imports: the entry holds only what starts tracing
    // (@preflight/telemetry), and the service (with its external imports of express, pg, ioredis…)
    // sits in chunks imported after it, so the instrumentations' loader hook sees those imports.
    // One file would import every external package before its first line runs.
    outdir: join(dir, 'dist'),
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    splitting: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    plugins: [externalThirdParty],
  });
  // Files a service serves as they are (the console's CSS and scripts): next to the bundle,
  // in dist/public, which is all of the service the image copies.
  if (existsSync(join(dir, 'public'))) cpSync(join(dir, 'public'), join(dir, 'dist', 'public'), { recursive: true });
  const externals = new Set();
  for (const input of Object.values(result.metafile.inputs)) {
    // A relative external is a glob import's pattern (routes/index.ts): esbuild bundles the files it matches.
    for (const imp of input.imports) if (imp.external && !imp.path.startsWith('node:') && !imp.path.startsWith('.')) externals.add(imp.path.split('/').slice(0, imp.path.startsWith('@') ? 2 : 1).join('/'));
  }
  const declared = productionDependencies(pkg);
  const undeclared = [...externals].filter((p) => !declared.has(p) && !builtinModules.includes(p));
  if (undeclared.length > 0) {
    console.error(`build-service: ${name} imports ${undeclared.join(', ')}, which neither services/${name}/package.json nor its @preflight/* libraries list in dependencies (the image would not install them)`);
    failed = true;
  }
  console.log(`built services/${name}/dist/main.js in ${Date.now() - started} ms (external: ${[...externals].sort().join(', ') || 'none'})`);
}
process.exit(failed ? 1 : 0);

/** The service's dependencies plus those of every workspace library it reaches (what `npm ci --omit=dev --workspace` installs). */
function productionDependencies(pkg, seen = new Set()) {
  const deps = new Set();
  for (const dep of Object.keys(pkg.dependencies ?? {})) {
    deps.add(dep);
    if (dep.startsWith('@preflight/') && !seen.has(dep)) {
      seen.add(dep);
      const libPkg = join(root, 'libs', dep.slice('@preflight/'.length), 'package.json');
      if (existsSync(libPkg)) for (const d of productionDependencies(JSON.parse(readFileSync(libPkg, 'utf8')), seen)) deps.add(d);
    }
  }
  return deps;
}
