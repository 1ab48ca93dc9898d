import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '@preflight/testing';
import type { ClaimedDelivery } from '../src/storage/deliveries.ts';
import { waiting } from '../src/worker/attempt-runner.ts';
import { startClaimLoop, type ClaimLoop } from '../src/worker/claim-loop.ts';
import { EndpointSlots } from '../src/worker/endpoint-slots.ts';
import { deliveryRow, heldRow, silentLogger, storeDelivery, workerSuite, type StoredDelivery } from './worker-fixture.ts';

const MAX_PER_ENDPOINT = 2;
const URL = 'http://127.0.0.1:9/hook';

const suite = workerSuite();
// Each test sees only its own deliveries.
beforeEach(async () => {
  await suite.base.db.deleteFrom('deliveries').execute();
});

let loop: ClaimLoop | undefined;
afterEach(async () => {
  await loop?.stop();
  loop = undefined;
});

/**
 * A claim loop over real slots, as the scheduler runs it: claimed rows wait in the slots, and
 * this replica has room for `capacity` waiting rows in all. Its poll is a minute, so every
 * claim after the first is one a wake or a due time asked for.
 */
function claimLoopUnderTest(opts: { capacity: number; slots?: EndpointSlots; expireOverdue?: () => Promise<void> }) {
  const slots = opts.slots ?? new EndpointSlots(MAX_PER_ENDPOINT);
  const taken: Array<{ row: ClaimedDelivery; token: string }> = [];
  loop = startClaimLoop({
    db: suite.base.db,
    logger: silentLogger,
    slots,
    maxPerEndpoint: MAX_PER_ENDPOINT,
    pollIntervalMs: 60_000,
    leaseMs: 60_000,
    free: () => opts.capacity - slots.queued,
    take: (rows, token) => {
      for (const row of rows) {
        taken.push({ row, token });
        slots.enqueue(waiting(row, token, row.due_at.getTime()));
      }
    },
    expireOverdue: opts.expireOverdue ?? (async () => undefined),
  });
  return { loop, slots, taken };
}

const ids = (taken: Array<{ row: ClaimedDelivery }>) => taken.map((t) => t.row.id).sort();

describe('startClaimLoop', () => {
  it('claims the due rows it has room for, leased under the token it hands over, and claims again when room frees', async () => {
    const endpoints = [randomUUID(), randomUUID(), randomUUID()];
    const stored: StoredDelivery[] = [];
    for (const endpointId of endpoints) stored.push(await storeDelivery(suite.base.db, { endpointId, url: URL }));
    const { loop, slots, taken } = claimLoopUnderTest({ capacity: 2 });

    await eventually(() => expect(taken).toHaveLength(2));
    for (const { row, token } of taken) expect(await deliveryRow(suite.base.db, row.id)).toMatchObject({ status: 'pending', lease_token: token });

    slots.drain();
    loop.roomFreed();
    await eventually(() => expect(ids(taken)).toEqual(stored.map((s) => s.id).sort()));
  });

  it('claims when woken, and a row due later at its due time', async () => {
    const { loop, taken } = claimLoopUnderTest({ capacity: 10 });
    // The first claim found nothing: none is wanted until something says rows may be due.
    await eventually(() => expect(loop.wanted()).toBe(false));

    const now = await storeDelivery(suite.base.db, { endpointId: randomUUID(), url: URL });
    loop.wake();
    expect(loop.wanted()).toBe(true);
    await eventually(() => expect(ids(taken)).toEqual([now.id]));

    const later = await storeDelivery(suite.base.db, { endpointId: randomUUID(), url: URL, dueInMs: 300 });
    loop.wake();
    await eventually(() => expect(ids(taken)).toEqual([now.id, later.id].sort()), { timeoutMs: 5_000 });
    expect(taken.find((t) => t.row.id === later.id)!.row.due_at.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('leaves an endpoint at its bound out of the claim, and claims its rows once a slot of it ends', async () => {
    const slots = new EndpointSlots(MAX_PER_ENDPOINT);
    const full = randomUUID();
    // Twice its bound held here: half of it in flight, half waiting.
    for (let i = 0; i < 2 * MAX_PER_ENDPOINT; i++) slots.enqueue(waiting(heldRow(full), randomUUID(), Date.now()));
    slots.startEach(() => true, () => undefined);
    const held = await storeDelivery(suite.base.db, { endpointId: full, url: URL });
    const other = await storeDelivery(suite.base.db, { endpointId: randomUUID(), url: URL });
    const { loop, taken } = claimLoopUnderTest({ capacity: 100, slots });

    await eventually(() => expect(ids(taken)).toEqual([other.id]));

    slots.ended(full, true);
    loop.slotFreed(full);
    await eventually(() => expect(ids(taken)).toEqual([held.id, other.id].sort()));
  });

  it('runs expireOverdue before claiming, again within EXPIRE_EVERY_MS while rows wait for slots, and keeps going when a round fails', async () => {
    let expired = 0;
    const { taken } = claimLoopUnderTest({
      capacity: 100,
      expireOverdue: async () => {
        expired += 1;
        if (expired === 1) throw new Error('database unavailable');
      },
    });
    const stored = await storeDelivery(suite.base.db, { endpointId: randomUUID(), url: URL });
    loop!.wake();

    await eventually(() => expect(ids(taken)).toEqual([stored.id]));
    // The claimed row waits in the slots (nothing starts it here): the loop looks every EXPIRE_EVERY_MS.
    await eventually(() => expect(expired).toBeGreaterThanOrEqual(4), { timeoutMs: 5_000 });
  });
});
