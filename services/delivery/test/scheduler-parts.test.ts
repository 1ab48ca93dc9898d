import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from '../src/storage/deliveries.ts';
import { AdmissionQueue } from '../src/worker/admissions.ts';
import type { Waiting } from '../src/worker/attempt-runner.ts';
import { EndpointSlots, STALL_MS } from '../src/worker/endpoint-slots.ts';

const row = (endpointId: string): ClaimedDelivery => ({
  id: randomUUID(),
  event_id: randomUUID(),
  event_type: 'IssueCreated',
  endpoint_id: endpointId,
  org_id: randomUUID(),
  url: 'https://receiver.example/hook',
  body: '{}',
  attempt_count: 0,
  trigger: 'event',
  due_at: new Date(),
});
const waiting = (endpointId: string, dueAt = Date.now()): Waiting => ({ row: row(endpointId), token: randomUUID(), dueAt, early: undefined });
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
