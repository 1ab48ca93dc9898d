import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openSecret, parseKeyRing, reencryptionSummary, RingWatch, sealSecret, walkSealed, type Resealed, type SealedRow } from '../src/index.ts';

const key = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;
const OLD = key('old');
const NEW = key('new');

/** A table in memory: rows by id, pages in id order, writes applied only where the iv still matches. */
function table(ring: string, n: number) {
  const seal = parseKeyRing(ring);
  const rows = new Map<string, SealedRow>();
  for (let i = 0; i < n; i += 1) {
    const id = `r${String(i).padStart(3, '0')}`;
    rows.set(id, { id, parts: [{ kind: 'secret', sealed: sealSecret(seal, `plain-${id}`, `ctx:${id}`), context: `ctx:${id}` }] });
  }
  const read = async (after: string | undefined, limit: number) => [...rows.values()].filter((r) => after === undefined || r.id > after).slice(0, limit);
  const write = async (changes: Resealed[]) => {
    let written = 0;
    for (const c of changes) {
      const part = rows.get(c.id)!.parts.find((p) => p.kind === c.kind)!;
      if (!part.sealed.iv.equals(c.was.iv)) continue;
      part.sealed = c.now;
      written += 1;
    }
    return written;
  };
  return { rows, read, write };
}

describe('walkSealed', () => {
  it('reseals everything under the active key page by page, once, keeping the plaintext', async () => {
    const t = table(OLD, 7);
    const ring = parseKeyRing(`${NEW},${OLD}`);
    const first = await walkSealed(ring, t.read, { batchSize: 3, write: t.write });
    expect(first).toMatchObject({ rows: 7, parts: { secret: 7 }, byKey: { old: 7 }, resealed: 7, changedMeanwhile: 0, unopened: [] });
    for (const row of t.rows.values()) {
      expect(row.parts[0]!.sealed.keyId).toBe('new');
      expect(openSecret(parseKeyRing(NEW), row.parts[0]!.sealed, row.parts[0]!.context)).toBe(`plain-${row.id}`);
    }
    const second = await walkSealed(ring, t.read, { batchSize: 3, write: t.write });
    expect(second).toMatchObject({ byKey: { new: 7 }, resealed: 0 });
    expect(reencryptionSummary(ring, second, true).notUnderActiveKey).toBe(0);
  });

  it('reports what no key opens (wrong material under a known id too) and writes nothing without `write`', async () => {
    const t = table(OLD, 3);
    const impostor = parseKeyRing(`${NEW},${key('old')}`);
    const report = await walkSealed(impostor, t.read);
    expect(report.unopened.map((u) => [u.id, u.kind, u.keyId])).toEqual([['r000', 'secret', 'old'], ['r001', 'secret', 'old'], ['r002', 'secret', 'old']]);
    expect(JSON.stringify(report)).not.toContain('plain-');
    expect(reencryptionSummary(impostor, report, false)).toMatchObject({ notUnderActiveKey: 3, undecryptable: [{ id: 'r000', kind: 'secret', keyId: 'old' }, expect.anything(), expect.anything()] });
    expect([...t.rows.values()].every((r) => r.parts[0]!.sealed.keyId === 'old')).toBe(true);
  });

  it('counts a part changed between its read and its write as changed meanwhile, not resealed', async () => {
    const t = table(OLD, 2);
    const ring = parseKeyRing(`${NEW},${OLD}`);
    const report = await walkSealed(ring, t.read, {
      write: async (changes) => {
        // The service replaced r001's secret meanwhile.
        t.rows.get('r001')!.parts[0]!.sealed = sealSecret(ring, 'replaced', 'ctx:r001');
        return t.write(changes);
      },
    });
    expect(report).toMatchObject({ resealed: 1, changedMeanwhile: 1 });
    expect(openSecret(ring, t.rows.get('r001')!.parts[0]!.sealed, 'ctx:r001')).toBe('replaced');
  });
});

describe('RingWatch', () => {
  it('keeps the last report, counts per kind, logs what no key opens, and keeps the report through a failed walk', async () => {
    const t = table(OLD, 2);
    const logged: string[] = [];
    const logger = { error: (_f: object, msg: string) => logged.push(`error ${msg}`), warn: (_f: object, msg: string) => logged.push(`warn ${msg}`) };
    let fail = false;
    const watch = new RingWatch(() => (fail ? Promise.reject(new Error('database away')) : walkSealed(parseKeyRing(NEW), t.read)), { logger, what: 'test secrets', idField: 'rowId' });
    expect(watch.counts(['secret', 'other'])).toEqual({ secret: 0, other: 0 });
    await watch.check();
    expect(watch.counts(['secret', 'other'])).toEqual({ secret: 2, other: 0 });
    fail = true;
    expect(await watch.check()).toBeUndefined();
    expect(watch.counts(['secret'])).toEqual({ secret: 2 });
    expect(logged).toEqual([expect.stringMatching(/^error test secrets no configured key opens/), expect.stringMatching(/^warn checking the stored test secrets/)]);
    await watch.stop();
  });
});
