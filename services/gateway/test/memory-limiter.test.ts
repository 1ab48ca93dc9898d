import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../src/rate-limit/memory-limiter.ts';

describe('in-process sliding log', () => {
  it('never admits more than the limit in any window, and reopens exactly when the oldest admission expires', async () => {
    let now = 1_000_000;
    const limiter = new MemoryRateLimiter({ limit: 3, windowSeconds: 10 }, () => now);
    expect((await limiter.check('k')).remaining).toBe(2); // t=0
    now += 4_000;
    await limiter.check('k'); // t=4
    now += 5_000;
    const third = await limiter.check('k'); // t=9
    expect(third).toMatchObject({ admitted: true, remaining: 0, resetSeconds: 1 });
    // A fixed window starting at t=0 would reopen at t=10 and admit 3 more by t=10.5; we must not.
    now += 500;
    expect(await limiter.check('k')).toMatchObject({ admitted: false, resetSeconds: 1 });
    now += 500; // t=10: the t=0 admission leaves the window
    expect((await limiter.check('k')).admitted).toBe(true);
    expect((await limiter.check('k')).admitted).toBe(false);
    // Rejections were not recorded: the next opening is when the t=4 admission expires.
    now += 4_000;
    expect((await limiter.check('k')).admitted).toBe(true);
  });

  it('keeps keys apart and forgets expired logs', async () => {
    let now = 0;
    const limiter = new MemoryRateLimiter({ limit: 1, windowSeconds: 1 }, () => now);
    expect((await limiter.check('a')).admitted).toBe(true);
    expect((await limiter.check('b')).admitted).toBe(true);
    expect((await limiter.check('a')).admitted).toBe(false);
    now += 1_000;
    limiter.sweep();
    expect((await limiter.check('a')).admitted).toBe(true);
  });

  it('counts the admissions in the window as it lists them', async () => {
    let now = 0;
    const limiter = new MemoryRateLimiter({ limit: 10, windowSeconds: 1 }, () => now);
    for (let i = 0; i < 4; i++) {
      await limiter.check('k');
      now += 300;
    }
    // t=1200: the t=0 admission has left the window.
    expect(limiter.count('k')).toBe(3);
    expect(limiter.count('k')).toBe(limiter.admissions('k').length);
    expect(limiter.count('other')).toBe(0);
  });
});
