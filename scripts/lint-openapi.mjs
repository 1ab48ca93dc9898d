#!/usr/bin/env node
/**
 * Lints the public API's OpenAPI document: builds it from libs/contract (TypeScript, loaded
 * through tsx), writes it to a temporary file and runs `redocly lint` with the repository's
 * redocly.yaml. Exits non-zero when Redocly reports an error (warnings are printed, not fatal).
 *
 *   node scripts/lint-openapi.mjs            # from anywhere; `npm run lint -w @preflight/contract`
 *   node scripts/lint-openapi.mjs --keep     # also keeps and prints the path of the written file
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const keep = process.argv.includes('--keep');

const { buildOpenApiDocument } = await tsImport('../libs/contract/src/openapi.ts', import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'preflight-openapi-'));
const file = join(dir, 'openapi.json');
writeFileSync(file, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);

const require = createRequire(import.meta.url);
const cliPackage = require.resolve('@redocly/cli/package.json');
const cli = join(dirname(cliPackage), require(cliPackage).bin.redocly);

const result = spawnSync(process.execPath, [cli, 'lint', file, '--config', join(root, 'redocly.yaml')], {
  stdio: 'inherit',
  // No usage telemetry or update checks from a build step.
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
});

if (keep) console.log(`OpenAPI document kept at ${file}`);
else rmSync(dir, { recursive: true, force: true });
if (result.error) {
  console.error(`lint-openapi: could not run redocly: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
