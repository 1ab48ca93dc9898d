import { afterEach, describe, expect, it, vi } from 'vitest';
import { Registry } from 'prom-client';
import { createLogger } from '@preflight/log';
import { BreakerOpen, Breakers, UnhealthyResult } from '../src/index.ts';

/**
 * A key's breaker as its callers see it: unhealthy results open it, an open one refuses at
 * once without calling (and without a stack to build), half-open lets one trial through.
 */
const RESET_MS = 1_000;
const newBreakers = () =>
  new Breakers(
    { metricPrefix: 'test', subject: 'endpoint', whileOpen: 'refused', resetTimeoutMs: RESET_MS, volumeThreshold: 2, errorThresholdPercentage: 50, rollingWindowMs: 10_000 },
    createLogger('breakers-test', { level: 'silent' }),
    new Registry(),
  );
const unhealthy = async () => {
  throw UnhealthyResult.of('timed out');
};

describe('Breakers', () => {
  let breakers: Breakers | undefined;
  afterEach(() => {
    breakers?.shutdown();
    vi.useRealTimers();
  });

  it('hands unhealthy results back, opens on them, then refuses without calling; half-open lets one trial through', async () => {
    vi.useFakeTimers();
    breakers = newBreakers();
    expect(await breakers.fire('e1', unhealthy)).toBe('timed out');
    expect(await breakers.fire('e1', unhealthy)).toBe('timed out');
    expect(breakers.state('e1')).toBe('open');

    const action = vi.fn(async () => 'sent');
    const refused = await breakers.fire('e1', action).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(BreakerOpen);
    expect(String((refused as Error).stack)).not.toMatch(/\n\s+at /);
    expect(action).not.toHaveBeenCalled();
    // Other keys are not touched.
    expect(await breakers.fire('e2', action)).toBe('sent');

    vi.advanceTimersByTime(RESET_MS);
    expect(breakers.state('e1')).toBe('half-open');
    let release!: (v: string) => void;
    const trial = breakers.fire('e1', () => new Promise<string>((r) => (release = r)));
    await expect(breakers.fire('e1', action)).rejects.toBeInstanceOf(BreakerOpen);
    release('sent');
    expect(await trial).toBe('sent');
    expect(breakers.state('e1')).toBe('closed');
    expect(await breakers.fire('e1', action)).toBe('sent');
  });

  it('stays closed on results not marked unhealthy, whatever they say', async () => {
    breakers = newBreakers();
    for (let i = 0; i < 3; i++) expect(await breakers.fire('e1', async () => ({ statusCode: 500 }))).toEqual({ statusCode: 500 });
    expect(breakers.state('e1')).toBe('closed');
  });

  it('builds unhealthy results without a stack', () => {
    expect(String(UnhealthyResult.of(1).stack)).not.toMatch(/\n\s+at /);
    expect(String(new Error('x').stack)).toMatch(/\n\s+at /);
  });
});
