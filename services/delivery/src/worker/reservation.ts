import { randomUUID } from 'node:crypto';
import type { Reservation } from '../fanout/fanout.ts';
import type { ClaimedDelivery } from '../storage/deliveries.ts';
import type { EndpointSlots } from './endpoint-slots.ts';

export interface ReservationRules {
  slots: Pick<EndpointSlots, 'reserve' | 'unreserve'>;
  /** Whether a new delivery of the endpoint may be taken now: the bounds of a claim. */
  hasRoomFor: (endpointId: string) => boolean;
  /** Whether a row of the endpoint that gets no slot is stored parked. */
  parks: (endpointId: string, now: number) => boolean;
  /** The reserved rows are stored, leased under `token`. */
  accept: (rows: ClaimedDelivery[], token: string) => void;
  /** The slots went unused. */
  released: () => void;
}

/**
 * The fan-out's side: a slot for each endpoint that has room by the same bounds as a claim
 * (twice its capacity, twice `workers` in all), held until the rows are accepted (committed)
 * or released, whichever comes first. A row refused is inserted due at once, or parked.
 */
export function reserveSlots(endpointIds: readonly string[], rules: ReservationRules): Reservation {
  const token = randomUUID();
  const granted = endpointIds.map((id) => {
    if (!rules.hasRoomFor(id)) return false;
    rules.slots.reserve(id);
    return true;
  });
  const now = Date.now();
  const parked = endpointIds.map((id, i) => !granted[i] && rules.parks(id, now));
  let settled = false;
  const settle = (): boolean => {
    if (settled) return false;
    settled = true;
    for (const [i, id] of endpointIds.entries()) if (granted[i]) rules.slots.unreserve(id);
    return true;
  };
  return {
    token,
    granted,
    parked,
    accept(rows) {
      if (settle()) rules.accept(rows, token);
    },
    release() {
      if (settle()) rules.released();
    },
  };
}
