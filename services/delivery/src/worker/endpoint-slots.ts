import type { Waiting } from './attempt-runner.ts';

/**
 * An endpoint at its bound none of whose requests has been answered for this long is stalled
 * (it hangs, or answers in seconds; a request that timed out is no answer): the fan-out stores
 * its new deliveries at once instead of holding them in memory for room.
 */
export const STALL_MS = 1_000;

/**
 * What this replica holds per endpoint: requests in flight (at most `maxPerEndpoint`), leased
 * rows waiting for one of them to end (`ready`, in order), and slots the fan-out reserved for
 * rows it is inserting. An endpoint may hold twice its bound in all: a freed slot then starts
 * the next attempt at once instead of after a claim's round trip.
 */
export class EndpointSlots {
  readonly #inFlight = new Map<string, number>();
  readonly #ready = new Map<string, Waiting[]>();
  readonly #reserved = new Map<string, number>();
  /** When a request of the endpoint last ended (or its first one started): stalls are told by it. */
  readonly #progressAt = new Map<string, number>();
  /** Rows waiting in `ready`, all endpoints. */
  queued = 0;
  /** Reserved slots, all endpoints. */
  reservedTotal = 0;
  /** Requests in flight, all endpoints. */
  requesting = 0;

  constructor(private readonly maxPerEndpoint: number) {}

  busy(endpointId: string): number {
    return this.#inFlight.get(endpointId) ?? 0;
  }

  waiting(endpointId: string): number {
    return this.#ready.get(endpointId)?.length ?? 0;
  }

  held(endpointId: string): number {
    return this.busy(endpointId) + this.waiting(endpointId) + (this.#reserved.get(endpointId) ?? 0);
  }

  /** Whether the endpoint may take another row (in flight, waiting or reserved). */
  hasRoom(endpointId: string): boolean {
    return this.held(endpointId) < 2 * this.maxPerEndpoint;
  }

  /** Rows the endpoint may still take. */
  room(endpointId: string): number {
    return Math.max(0, 2 * this.maxPerEndpoint - this.held(endpointId));
  }

  known(): Set<string> {
    return new Set([...this.#inFlight.keys(), ...this.#ready.keys(), ...this.#reserved.keys()]);
  }

  /** Endpoints holding all they may: left out of claims. */
  saturated(): string[] {
    return [...this.known()].filter((id) => !this.hasRoom(id));
  }

  isStalled(endpointId: string, now: number): boolean {
    return !this.hasRoom(endpointId) && this.busy(endpointId) > 0 && now - (this.#progressAt.get(endpointId) ?? now) >= STALL_MS;
  }

  stalledCount(now: number): number {
    return [...this.#inFlight.keys()].filter((id) => this.isStalled(id, now)).length;
  }

  enqueue(w: Waiting): void {
    const list = this.#ready.get(w.row.endpoint_id);
    if (list) list.push(w);
    else this.#ready.set(w.row.endpoint_id, [w]);
    this.queued += 1;
  }

  reserve(endpointId: string): void {
    this.#reserved.set(endpointId, (this.#reserved.get(endpointId) ?? 0) + 1);
    this.reservedTotal += 1;
  }

  unreserve(endpointId: string): void {
    const n = (this.#reserved.get(endpointId) ?? 0) - 1;
    if (n > 0) this.#reserved.set(endpointId, n);
    else this.#reserved.delete(endpointId);
    this.reservedTotal -= 1;
  }

  /**
   * Hands `start` the waiting rows whose endpoint has a free slot, in order per endpoint, while
   * `canStart` allows, each counted as in flight first.
   */
  startEach(canStart: () => boolean, start: (w: Waiting) => void): void {
    for (const [id, list] of this.#ready) {
      if (!canStart()) return;
      while (list.length > 0 && canStart() && this.busy(id) < this.maxPerEndpoint) {
        const w = list.shift()!;
        this.queued -= 1;
        this.#started(id);
        start(w);
      }
      if (list.length === 0) this.#ready.delete(id);
    }
  }

  #started(endpointId: string): void {
    if (this.busy(endpointId) === 0) this.#progressAt.set(endpointId, Date.now());
    this.#inFlight.set(endpointId, this.busy(endpointId) + 1);
    this.requesting += 1;
  }

  /** A request ended; `answered` false: it ran out of time, which is no sign of life. */
  ended(endpointId: string, answered: boolean): void {
    this.requesting -= 1;
    if (answered) this.#progressAt.set(endpointId, Date.now());
    const n = this.busy(endpointId) - 1;
    if (n > 0) this.#inFlight.set(endpointId, n);
    else {
      this.#inFlight.delete(endpointId);
      this.#progressAt.delete(endpointId);
    }
  }

  /** Removes and answers the waiting rows due `timeoutMs` or more before `now`. */
  overdue(now: number, timeoutMs: number): Waiting[] {
    const out: Waiting[] = [];
    for (const [id, list] of this.#ready) {
      const kept = list.filter((w) => now - w.dueAt < timeoutMs || (out.push(w), false));
      if (kept.length > 0) this.#ready.set(id, kept);
      else this.#ready.delete(id);
    }
    this.queued -= out.length;
    return out;
  }

  /** Removes and answers every waiting row (a stop gives them back). */
  drain(): Waiting[] {
    const out = [...this.#ready.values()].flat();
    this.#ready.clear();
    this.queued = 0;
    return out;
  }
}
