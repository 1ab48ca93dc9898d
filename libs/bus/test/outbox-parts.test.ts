/**
 * The relay's local wake-up on its own (libs/bus/src/outbox/local-relays.ts), on a real pg pool:
 * a relay of this process learns that a writer committed when the writer's connection comes
 * back to the pool, without a NOTIFY. outbox.test.ts drives the whole relay.
 */
import pg from 'pg';
import { TEST_DATABASE_URL } from '@preflight/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { localRelays, watchPool } from '../src/outbox/local-relays.ts';

const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
afterAll(() => pool.end());

const pidOf = (client: pg.PoolClient) => (client as unknown as { processID: number }).processID;

describe('watchPool', () => {
  it('tracks checked-out connections and wakes once when one that enqueued comes back', async () => {
    let wakes = 0;
    const watch = watchPool(pool, 's1', () => (wakes += 1));
    const relay = [...localRelays].find((r) => r.schema === 's1')!;
    const writer = await pool.connect();
    const other = await pool.connect();
    expect(relay.checkedOut).toEqual(new Set([pidOf(writer), pidOf(other)]));
    relay.awaiting.add(pidOf(writer)); // as enqueueEvents does when it sends no NOTIFY
    other.release();
    expect(wakes).toBe(0);
    writer.release();
    expect(wakes).toBe(1);
    expect(relay.checkedOut.size).toBe(0);
    expect(relay.awaiting.size).toBe(0);
    watch.close();
    expect([...localRelays].some((r) => r.schema === 's1')).toBe(false);
  });

  it('no longer wakes once closed', async () => {
    let wakes = 0;
    const watch = watchPool(pool, 's2', () => (wakes += 1));
    const relay = [...localRelays].find((r) => r.schema === 's2')!;
    const writer = await pool.connect();
    relay.awaiting.add(pidOf(writer));
    watch.close();
    writer.release();
    expect(wakes).toBe(0);
  });
});
