import { describe, expect, it } from 'vitest';
import { Batcher, KeyedBatcher } from '../src/batcher.ts';

/** A write whose calls the test releases by hand, recording the batches it was given. */
function gate<T>() {
  const batches: T[][] = [];
  const pending: Array<() => void> = [];
  const write = (items: T[]) =>
    new Promise<T[]>((resolve, reject) => {
      batches.push(items);
      pending.push(() => (items.some((i) => i === 'bad') ? reject(new Error('bad item')) : resolve(items)));
    });
  const release = async () => {
    while (pending.length === 0) await new Promise((r) => setImmediate(r));
    pending.shift()!();
  };
  return { batches, write, release };
}

describe('Batcher', () => {
  it('writes a lone item at once, and gathers what arrives meanwhile into the next batch', async () => {
    const g = gate<string>();
    const b = new Batcher<string, string>(g.write, 10);
    const first = b.add('a');
    const rest = ['b', 'c', 'd'].map((x) => b.add(x));
    expect(g.batches).toEqual([['a']]);
    await g.release();
    expect(await first).toBe('a');
    await g.release();
    expect(await Promise.all(rest)).toEqual(['b', 'c', 'd']);
    expect(g.batches).toEqual([['a'], ['b', 'c', 'd']]);
    expect(b.idle).toBe(true);
  });

  it('with lingerMs, waits that long for more before writing a batch that is not full, never a full one', async () => {
    const g = gate<string>();
    const b = new Batcher<string, string>(g.write, 3, 30);
    const early = b.add('a');
    // Nothing written yet: the batch lingers; what arrives meanwhile joins it.
    await new Promise((r) => setImmediate(r));
    expect(g.batches).toEqual([]);
    const later = b.add('b');
    while (g.batches.length === 0) await new Promise((r) => setTimeout(r, 5));
    expect(g.batches).toEqual([['a', 'b']]);
    await g.release();
    expect(await Promise.all([early, later])).toEqual(['a', 'b']);
    // A full batch does not wait.
    const full = ['c', 'd', 'e'].map((x) => b.add(x));
    await new Promise((r) => setImmediate(r));
    expect(g.batches).toEqual([['a', 'b'], ['c', 'd', 'e']]);
    await g.release();
    expect(await Promise.all(full)).toEqual(['c', 'd', 'e']);
  });

  it('retries a failed batch item by item, so only the bad item fails', async () => {
    const g = gate<string>();
    const b = new Batcher<string, string>(g.write, 10);
    const first = b.add('a');
    const results = ['b', 'bad', 'c'].map((x) => b.add(x).then((v) => ({ ok: v }), (e: Error) => ({ err: e.message })));
    for (let i = 0; i < 5; i += 1) await g.release();
    await first;
    expect(await Promise.all(results)).toEqual([{ ok: 'b' }, { err: 'bad item' }, { ok: 'c' }]);
    expect(g.batches).toEqual([['a'], ['b', 'bad', 'c'], ['b'], ['bad'], ['c']]);
  });
});

describe('KeyedBatcher', () => {
  it('batches per key, writes keys concurrently, and forgets a key once it is idle', async () => {
    const calls: Array<{ key: string; items: number[] }> = [];
    const waiting: Array<() => void> = [];
    const kb = new KeyedBatcher<string, number, number>(
      (key, items) =>
        new Promise((resolve) => {
          calls.push({ key, items });
          waiting.push(() => resolve(items.map((i) => i * 10)));
        }),
      10,
    );
    const a1 = kb.add('a', 1);
    const b1 = kb.add('b', 1);
    const a2 = kb.add('a', 2);
    const a3 = kb.add('a', 3);
    // Both keys are being written at once; a's later items wait for a's first batch.
    expect(calls).toEqual([
      { key: 'a', items: [1] },
      { key: 'b', items: [1] },
    ]);
    expect(kb.size).toBe(2);
    waiting.shift()!();
    waiting.shift()!();
    expect([await a1, await b1]).toEqual([10, 10]);
    while (waiting.length === 0) await new Promise((r) => setImmediate(r));
    expect(calls[2]).toEqual({ key: 'a', items: [2, 3] });
    waiting.shift()!();
    expect([await a2, await a3]).toEqual([20, 30]);
    await new Promise((r) => setImmediate(r));
    expect(kb.size).toBe(0);
  });
});
