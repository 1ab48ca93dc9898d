import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from '@preflight/testing';
import { PUBLIC_URL, asKey, newKey, startHarness, type Harness } from '../../services/webhook/test/harness.ts';

/**
 * `npm run secrets:reencrypt` end to end, on a real schema: the command an operator runs after
 * putting a new key first in the ring. It moves every secret, is idempotent, and `--check`
 * tells when the old key may go.
 */
const OLD_KEY = newKey('2024-01');
const NEW_KEY = newKey('2025-06');
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ secretKeys: OLD_KEY });
});
afterAll(() => h?.close());

function run(...args: string[]): { status: number | null; summary: any } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/reencrypt-secrets.ts', '--only=webhook', ...args], {
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL, WEBHOOK_DB_SCHEMA: h.schema, WEBHOOK_SECRET_KEYS: `${NEW_KEY},${OLD_KEY}`, INTEGRATION_SECRET_KEYS: NEW_KEY, LOG_LEVEL: 'silent' },
  });
  const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
  if (!line) throw new Error(`no summary: ${r.stdout}${r.stderr}`);
  return { status: r.status, summary: JSON.parse(line) };
}

describe('npm run secrets:reencrypt', () => {
  // Three processes of tsx: seconds each on a loaded machine.
  it('moves every secret to the active key once, and --check then says the old key holds nothing', { timeout: 120_000 }, async () => {
    for (let i = 0; i < 3; i += 1) await h.call('POST', '/api/v1/webhooks', { as: asKey(randomUUID()), body: { url: PUBLIC_URL } });
    const check = run('--check');
    expect(check.status).toBe(0);
    expect(check.summary).toMatchObject({ service: 'webhook', write: false, activeKeyId: '2025-06', resealed: 0, notUnderActiveKey: 3, undecryptable: [] });

    const first = run();
    expect(first.status).toBe(0);
    expect(first.summary).toMatchObject({ write: true, rows: 3, sealedWithKeyBefore: { '2024-01': 3 }, resealed: 3, notUnderActiveKey: 0, undecryptable: [] });
    // Idempotent: a second run finds everything under the active key.
    const second = run();
    expect(second.summary).toMatchObject({ resealed: 0, sealedWithKeyBefore: { '2025-06': 3 }, notUnderActiveKey: 0 });
    const keyIds = await h.db.selectFrom('webhooks').select('secret_key_id').execute();
    expect(new Set(keyIds.map((r) => r.secret_key_id))).toEqual(new Set(['2025-06']));
  });
});
