import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { parseKeyRing } from '@preflight/secret-box';
import { TEST_DATABASE_URL, dropSchemas, isolatedName } from '@preflight/testing';
import { localKeyRings } from '../../scripts/lib/local-keys.ts';

/**
 * Issue 22, finding 8: `npm start` kept its at-rest keys per checkout, so a second checkout on
 * the same database made keys of its own and could not open what the first had sealed. The
 * rings now live in the database: every checkout on it gets the same ones.
 */
const schema = isolatedName('local_keys');
afterAll(() => dropSchemas([schema]));

const key = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;

describe('npm start: one key ring per database', () => {
  it('gives two fresh checkouts on one database the same rings, made once', async () => {
    const first = await localKeyRings(TEST_DATABASE_URL, {}, { schema });
    const second = await localKeyRings(TEST_DATABASE_URL, {}, { schema });
    expect(second.webhook).toBe(first.webhook);
    expect(second.integration).toBe(first.integration);
    expect(first.webhook).not.toBe(first.integration);
    // Valid rings, under ids no other database's keys share.
    expect(parseKeyRing(first.webhook).primaryId).toMatch(/^local-[0-9a-f]{8}$/);
    expect(parseKeyRing(first.integration).keys.size).toBe(1);
  });

  it("adopts a checkout's older ring as decrypt-only keys, and reports a clashing key id", async () => {
    const before = await localKeyRings(TEST_DATABASE_URL, {}, { schema });
    const active = parseKeyRing(before.webhook).primaryId;
    const older = key('local1');
    const adopted = await localKeyRings(TEST_DATABASE_URL, { webhook: older }, { schema });
    const ring = parseKeyRing(adopted.webhook);
    expect(ring.primaryId).toBe(active);
    expect([...ring.keys.keys()]).toEqual([active, 'local1']);
    expect(adopted.notes).toEqual([expect.stringContaining("webhook: this checkout's key 'local1' now decrypts")]);
    // Every checkout now has it; adopting it again changes nothing.
    expect((await localKeyRings(TEST_DATABASE_URL, {}, { schema })).webhook).toBe(adopted.webhook);
    expect((await localKeyRings(TEST_DATABASE_URL, { webhook: older }, { schema })).notes).toEqual([]);

    const clash = await localKeyRings(TEST_DATABASE_URL, { webhook: key('local1') }, { schema });
    expect(clash.webhook).toBe(adopted.webhook);
    expect(clash.notes).toEqual([expect.stringContaining("key 'local1' differs from the database's")]);
  });

  it('starts a new database from the ring a checkout already had, so its secrets still open', async () => {
    const other = isolatedName('local_keys');
    try {
      const mine = key('local1');
      const rings = await localKeyRings(TEST_DATABASE_URL, { integration: mine }, { schema: other });
      expect(rings.integration).toBe(mine);
      expect(rings.notes).toEqual([]);
    } finally {
      await dropSchemas([other]);
    }
  });
});
