import { describe, expect, it } from 'vitest';
import { Deadlines } from '../src/attempt/deadlines.ts';

const expiry = (d: { onExpire: (() => void) | undefined }) => new Promise<number>((resolve) => (d.onExpire = () => resolve(performance.now())));

describe('attempt deadlines (one list, one timer)', () => {
  it('fires each deadline not cleared, in the order started, no sooner than its length', async () => {
    const deadlines = new Deadlines(40);
    const t0 = performance.now();
    const a = deadlines.start();
    const b = deadlines.start();
    const c = deadlines.start();
    const fired: string[] = [];
    const aDone = expiry(a).then((t) => (fired.push('a'), t));
    b.onExpire = () => fired.push('b');
    const cDone = expiry(c).then((t) => (fired.push('c'), t));
    b.clear();
    const [ta, tc] = await Promise.all([aDone, cDone]);
    expect(fired).toEqual(['a', 'c']);
    expect(ta - t0).toBeGreaterThanOrEqual(39);
    expect(tc - t0).toBeGreaterThanOrEqual(39);
    expect([a.expired, b.expired, c.expired]).toEqual([true, false, true]);
    expect(deadlines.size).toBe(0);
    deadlines.close();
  });

  it('re-arms for the next deadline when the oldest was cleared, and stays quiet when all are', async () => {
    const deadlines = new Deadlines(30);
    const first = deadlines.start();
    const second = deadlines.start(performance.now() + 20);
    first.clear();
    const t0 = performance.now();
    const at = await expiry(second);
    // The timer armed for `first` found nothing due and waited for `second`, started 20 ms later.
    expect(at - t0).toBeGreaterThanOrEqual(45);
    expect(second.expired).toBe(true);
    expect(first.expired).toBe(false);

    const third = deadlines.start();
    let thirdFired = false;
    third.onExpire = () => (thirdFired = true);
    third.clear();
    const later = deadlines.start();
    await expiry(later);
    expect(thirdFired).toBe(false);
    deadlines.close();
  });

  it('an attempt that ends before its deadline leaves nothing behind', () => {
    const deadlines = new Deadlines(10_000);
    const all = Array.from({ length: 1_000 }, () => deadlines.start());
    for (const d of all) d.clear();
    expect(deadlines.size).toBe(0);
    // Clearing twice is harmless.
    all[0]!.clear();
    expect(deadlines.size).toBe(0);
    deadlines.close();
  });
});
