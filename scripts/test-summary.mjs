// Prints "N passed, N failed" from vitest's JSON report (vitest.config.ts writes it on every run).
import { readFileSync } from 'node:fs';
const file = process.argv[2];
try {
  const r = JSON.parse(readFileSync(file, 'utf8'));
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed`);
} catch (err) {
  // No report means vitest never finished (the type check failed first, or it crashed).
  console.log(`no test report at ${file} (${err.code ?? err.message}): the tests did not run to the end`);
  process.exitCode = 1;
}
