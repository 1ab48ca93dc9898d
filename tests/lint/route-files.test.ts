import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

// Route files serve their manifest entry through route() (libs/service-kit): the rules of
// eslint.config.js refuse a hand-written express route or a hand-sent JSON body there.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

async function findings(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
  expect(result?.messages.filter((m) => m.fatal)).toEqual([]);
  return (result?.messages ?? []).filter((m) => ['no-restricted-syntax', 'no-restricted-imports'].includes(m.ruleId ?? '')).map((m) => m.ruleId!);
}

describe('route files', () => {
  it('refuse express routes written by hand', async () => {
    const code = "export const register = (app: any) => {\n  app.get('/api/v1/x', () => undefined);\n  app.post('/api/v1/x', () => undefined);\n};\n";
    expect(await findings('services/issue/src/routes/public-snippet.ts', code)).toEqual(['no-restricted-syntax', 'no-restricted-syntax']);
  });

  it('refuse sendJson, and accept route() with io.send', async () => {
    expect(await findings('services/issue/src/routes/public-snippet.ts', "import { sendJson } from '@preflight/http';\nexport const s = sendJson;\n")).toEqual(['no-restricted-imports']);
    const ok = "import { route } from '@preflight/service-kit';\nexport const register = (app: any) => route(app, 'getIssue', async (_req, _res, io) => io.send({} as never));\n";
    expect(await findings('services/issue/src/routes/public-get-issue-snippet.ts', ok)).toEqual([]);
  });

  it('leave the rest of a service alone', async () => {
    expect(await findings('services/issue/src/app-snippet.ts', "import { sendJson } from '@preflight/http';\nexport const s = sendJson;\nexport const r = (app: any) => app.get('/x', () => undefined);\n")).toEqual([]);
  });
});
