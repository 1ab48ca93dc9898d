import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { waiting, type Waiting } from '../src/worker/attempt-runner.ts';
import { EndpointSlots } from '../src/worker/endpoint-slots.ts';
import { overdueExpiry } from '../src/worker/overdue.ts';
import { deliveryRow, heldRow, storeDelivery, workerSuite } from './worker-fixture.ts';

const TIMEOUT_MS = 1_000;
const URL = 'http://127.0.0.1:9/hook';

const suite = workerSuite();

describe('overdueExpiry', () => {
  it("fails unsent the rows waiting here past an attempt's time, the due rows of saturated endpoints and parked rows past it, and no other", async () => {
    const slots = new EndpointSlots(1);
    const full = randomUUID();
    const old = waiting(heldRow(full), randomUUID(), Date.now() - 2 * TIMEOUT_MS);
    slots.enqueue(waiting(heldRow(full), randomUUID(), Date.now()));
    slots.startEach(() => true, () => undefined);
    slots.enqueue(old);
    const fresh = waiting(heldRow(full), randomUUID(), Date.now());
    slots.enqueue(fresh);
    const ofFull = await storeDelivery(suite.base.db, { endpointId: full, url: URL, dueInMs: -2 * TIMEOUT_MS });
    const ofOther = await storeDelivery(suite.base.db, { endpointId: randomUUID(), url: URL, dueInMs: -2 * TIMEOUT_MS });
    const parked = await storeDelivery(suite.base.db, { endpointId: randomUUID(), url: URL, dueInMs: -2 * TIMEOUT_MS });
    await suite.base.db.updateTable('deliveries').set({ status: 'parked' }).where('id', '=', parked.id).execute();

    const unsent: Array<{ w: Waiting; inFlight: number }> = [];
    const tracked: Array<Promise<void>> = [];
    const expire = overdueExpiry({
      db: suite.base.db,
      slots,
      runner: { unsent: async (w, _now, inFlight) => void unsent.push({ w, inFlight }) },
      attemptTimeoutMs: TIMEOUT_MS,
      leaseMs: 60_000,
      track: (recorded) => tracked.push(recorded),
    });
    await expire();
    await Promise.all(tracked);

    expect(unsent.map((u) => u.w.row.id).sort()).toEqual([old.row.id, ofFull.id, parked.id].sort());
    expect(unsent.find((u) => u.w.row.id === ofFull.id)!.inFlight).toBe(1);
    expect(tracked).toHaveLength(3);
    expect([slots.queued, slots.waiting(full)]).toEqual([1, 1]);
    const leased = unsent.find((u) => u.w.row.id === ofFull.id)!.w;
    expect(await deliveryRow(suite.base.db, ofFull.id)).toMatchObject({ status: 'pending', lease_token: leased.token });
    expect(await deliveryRow(suite.base.db, ofOther.id)).toMatchObject({ lease_token: null });
  });
});
