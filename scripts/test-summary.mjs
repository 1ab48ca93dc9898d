// Prints "N passed, N failed" from vitest's JSON report (written when CI=true).
import { readFileSync } from 'node:fs';
const file = process.argv[2];
try {
  const r = JSON.parse(readFileSync(file, 'utf8'));
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed`);
} catch {
  console.log('0 passed, 1 failed');
  process.exitCode = 1;
}
