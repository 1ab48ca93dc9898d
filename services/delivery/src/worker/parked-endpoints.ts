import type { EndpointSlots } from './endpoint-slots.ts';

/**
 * Endpoints this replica parked deliveries of: a delivery of an endpoint stalled here goes to
 * the table parked (out of the due index, no NOTIFY), and the first answer of the endpoint
 * hands its parked deliveries back to every replica (`unpark`).
 */
export class ParkedEndpoints {
  readonly #parked = new Set<string>();

  constructor(
    private readonly slots: Pick<EndpointSlots, 'isStalled'>,
    private readonly unpark: (endpointId: string) => void,
  ) {}

  /** Whether a delivery of the endpoint is stored parked (the endpoint is stalled here). */
  readonly parks = (endpointId: string, now = Date.now()): boolean => {
    if (!this.slots.isStalled(endpointId, now)) return false;
    this.#parked.add(endpointId);
    return true;
  };

  /** A request of the endpoint was answered. */
  answered(endpointId: string): void {
    if (this.#parked.delete(endpointId)) this.unpark(endpointId);
  }
}
