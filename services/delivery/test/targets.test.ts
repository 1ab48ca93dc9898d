import { describe, expect, it } from 'vitest';
import { Deadlines } from '../src/attempt/deadlines.ts';
import { Targets } from '../src/attempt/target.ts';

describe('Targets (where attempts connect)', () => {
  it('keeps an IP-literal URL once assessed, and resolves and assesses a host name at every attempt', async () => {
    const deadlines = new Deadlines(1_000);
    const lookups: string[] = [];
    const targets = new Targets({ allowPrivate: false, resolve: async (host) => (lookups.push(host), [{ address: '93.184.216.34', family: 4 }]) });
    const literal = 'https://93.184.216.34/hook';
    expect(targets.kept(literal)).toBeUndefined();
    const first = await targets.of(literal, deadlines.start());
    expect(first.target).toEqual({ ok: true, hostname: '93.184.216.34', address: '93.184.216.34', family: 4 });
    expect(targets.kept(literal)).toEqual(first);
    expect(targets.kept(literal)?.url).toBe(first.url); // parsed once
    // A refused literal is kept refused: its verdict cannot change.
    const loopback = await targets.of('http://127.0.0.1:8080/hook', deadlines.start());
    expect(loopback.target).toMatchObject({ ok: false, refused: true });
    expect(targets.kept('http://127.0.0.1:8080/hook')?.target).toMatchObject({ ok: false, refused: true });

    const named = 'https://hooks.example.com/in';
    await targets.of(named, deadlines.start());
    await targets.of(named, deadlines.start());
    expect(targets.kept(named)).toBeUndefined();
    expect(lookups).toEqual(['hooks.example.com', 'hooks.example.com']);
    deadlines.close();
  });
});
