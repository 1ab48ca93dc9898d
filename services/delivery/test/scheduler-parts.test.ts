import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AdmissionQueue } from '../src/worker/admissions.ts';
import type { Waiting } from '../src/worker/attempt-runner.ts';
import { EndpointSlots, STALL_MS } from '../src/worker/endpoint-slots.ts';
import { ParkedEndpoints } from '../src/worker/parked-endpoints.ts';
import { reserveSlots, type ReservationRules } from '../src/worker/reservation.ts';
import { heldRow } from './worker-fixture.ts';

const waiting = (endpointId: string, dueAt = Date.now()): Waiting => ({ row: heldRow(endpointId), token: randomUUID(), dueAt, early: undefined });
/** Starts every waiting row there is a slot for. */
const startAll = (slots: EndpointSlots, canStart = () => true) => {
  const started: Waiting[] = [];
  slots.startEach(canStart, (w) => started.push(w));
  return started;
};
const early = { stored: Promise.resolve(true) } as unknown as NonNullable<Waiting['early']>;

describe('EndpointSlots', () => {
  it('starts waiting rows in order up to the per-endpoint bound, and holds twice the bound in all', () => {
    const slots = new EndpointSlots(2);
    const rows = [1, 2, 3, 4].map(() => waiting('a'));
    rows.forEach((w) => slots.enqueue(w));
    expect(slots.hasRoom('a')).toBe(false);
    expect(slots.saturated()).toEqual(['a']);
    expect(startAll(slots)).toEqual(rows.slice(0, 2));
    expect([slots.busy('a'), slots.waiting('a'), slots.requesting, slots.queued]).toEqual([2, 2, 2, 2]);
    slots.ended('a', true);
    expect(startAll(slots)).toEqual([rows[2]]);
    expect(slots.room('a')).toBe(1);
  });

  it('stops at the overall bound it is given', () => {
    const slots = new EndpointSlots(4);
    for (const id of ['a', 'b']) for (let i = 0; i < 2; i++) slots.enqueue(waiting(id));
    expect(startAll(slots, () => slots.requesting < 3)).toHaveLength(3);
  });

  it('counts reserved slots until they are given back', () => {
    const slots = new EndpointSlots(1);
    slots.reserve('a');
    slots.reserve('a');
    expect([slots.hasRoom('a'), slots.reservedTotal]).toEqual([false, 2]);
    slots.unreserve('a');
    expect([slots.hasRoom('a'), slots.reservedTotal, slots.known().has('a')]).toEqual([true, 1, true]);
  });

  it('is stalled only at its bound with no request answered for STALL_MS; a timeout is no answer', () => {
    const slots = new EndpointSlots(1);
    slots.enqueue(waiting('a'));
    slots.enqueue(waiting('a'));
    startAll(slots);
    const start = Date.now();
    expect(slots.isStalled('a', start + STALL_MS - 100)).toBe(false);
    expect(slots.isStalled('a', start + STALL_MS + 50)).toBe(true);
    expect(slots.stalledCount(start + STALL_MS + 50)).toBe(1);
    slots.ended('a', false);
    slots.enqueue(waiting('a'));
    startAll(slots);
    // The request that ended timed out: the new one's clock starts with it, not at the timeout.
    expect(slots.isStalled('a', Date.now() + STALL_MS + 50)).toBe(true);
  });

  it('hands over the rows waiting longer than a timeout, and every row at a stop', () => {
    const slots = new EndpointSlots(1);
    const now = Date.now();
    const old = waiting('a', now - 5_000);
    const fresh = waiting('a', now);
    slots.enqueue(old);
    slots.enqueue(fresh);
    expect(slots.overdue(now, 1_000)).toEqual([old]);
    expect(slots.queued).toBe(1);
    expect(slots.drain()).toEqual([fresh]);
    expect(slots.queued).toBe(0);
  });
});

describe('AdmissionQueue', () => {
  it('admits in order while there is room, and refuses at the deadline or when the endpoint is refused', async () => {
    let refuse = false;
    const queue = new AdmissionQueue(() => refuse);
    const [a1, a2, b1] = [waiting('a'), waiting('a'), waiting('b')];
    const taken = [queue.wait({ ...a1, early }, Date.now() + 60_000), queue.wait({ ...a2, early }, Date.now() + 60_000), queue.wait({ ...b1, early }, Date.now() - 1)];
    const admitted: string[] = [];
    let room = 1;
    queue.admit(
      (id) => id === 'a' && room > 0,
      (w) => {
        room -= 1;
        admitted.push(w.row.id);
      },
    );
    expect(admitted).toEqual([a1.row.id]);
    queue.sweep();
    refuse = true;
    queue.sweep();
    expect(await Promise.all(taken)).toEqual([true, false, false]);
    expect(queue.size).toBe(0);
  });
});

describe('ParkedEndpoints', () => {
  it('parks only a stalled endpoint, and unparks it once, at its first answer', () => {
    const slots = new EndpointSlots(1);
    const unparked: string[] = [];
    const parked = new ParkedEndpoints(slots, (id) => unparked.push(id));
    slots.enqueue(waiting('a'));
    slots.enqueue(waiting('a'));
    startAll(slots);
    expect(parked.parks('a', Date.now())).toBe(false);
    expect(parked.parks('a', Date.now() + STALL_MS + 50)).toBe(true);
    parked.answered('b');
    parked.answered('a');
    parked.answered('a');
    expect(unparked).toEqual(['a']);
  });
});

describe('reserveSlots', () => {
  const rules = (slots: EndpointSlots, stalled: string[] = []) => {
    const heard = { accepted: [] as Array<{ rows: number; token: string }>, released: 0 };
    const r: ReservationRules = {
      slots,
      hasRoomFor: (id) => slots.hasRoom(id),
      parks: (id) => stalled.includes(id),
      accept: (rows, token) => heard.accepted.push({ rows: rows.length, token }),
      released: () => void (heard.released += 1),
    };
    return { r, heard };
  };

  it('grants a slot per endpoint with room, parks the refused rows of a stalled one, and gives the slots back once', () => {
    const slots = new EndpointSlots(1);
    const { r, heard } = rules(slots, ['b']);
    const reservation = reserveSlots(['a', 'a', 'a', 'b', 'b'], r);
    expect(reservation.granted).toEqual([true, true, false, true, true]);
    expect(reservation.parked).toEqual([false, false, false, false, false]);
    expect(slots.reservedTotal).toBe(4);

    const refused = reserveSlots(['a', 'b'], r);
    expect([refused.granted, refused.parked]).toEqual([
      [false, false],
      [false, true],
    ]);

    reservation.accept([heldRow('a'), heldRow('a'), heldRow('b'), heldRow('b')]);
    reservation.release();
    refused.release();
    expect(heard.accepted).toEqual([{ rows: 4, token: reservation.token }]);
    expect(heard.released).toBe(1);
    expect(slots.reservedTotal).toBe(0);
  });
});
