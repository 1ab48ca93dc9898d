import type { Waiting } from './attempt-runner.ts';

interface Admission {
  waiting: Waiting;
  deadline: number;
  resolve: (taken: boolean) => void;
}

/** How often waiting admissions are checked against their deadline and their endpoint's state. */
const SWEEP_MS = 50;

/**
 * New deliveries of the fan-out waiting for room at their endpoint, per endpoint, in the order
 * they came: a busy endpoint's backlog waits here (and its events in JetStream) rather than as
 * rows to claim, each for up to its deadline.
 */
export class AdmissionQueue {
  readonly #waiting = new Map<string, Admission[]>();
  #sweep: NodeJS.Timeout | undefined;

  constructor(private readonly refused: (endpointId: string, now: number) => boolean) {}

  has(endpointId: string): boolean {
    return this.#waiting.has(endpointId);
  }

  get size(): number {
    return this.#waiting.size;
  }

  /** Waits for room until `deadline`; resolves true once taken, false when refused. */
  wait(w: Waiting, deadline: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const list = this.#waiting.get(w.row.endpoint_id);
      const a: Admission = { waiting: w, deadline, resolve };
      if (list) list.push(a);
      else this.#waiting.set(w.row.endpoint_id, [a]);
      this.#sweep ??= setInterval(() => this.sweep(), SWEEP_MS);
    });
  }

  /** Hands each endpoint's waiting deliveries, in order, to `take` while `hasRoom` says so. */
  admit(hasRoom: (endpointId: string) => boolean, take: (w: Waiting) => void): void {
    for (const [id, list] of this.#waiting) {
      while (list.length > 0 && hasRoom(id)) {
        const a = list.shift()!;
        take(a.waiting);
        a.resolve(true);
      }
      if (list.length === 0) this.#waiting.delete(id);
    }
    this.#stopSweepWhenEmpty();
  }

  /** Refuses the deliveries whose deadline passed or whose endpoint `refused` (stalled, or stopping). */
  sweep(): void {
    const now = Date.now();
    for (const [id, list] of this.#waiting) {
      const refused = this.refused(id, now);
      const kept = list.filter((a) => {
        if (!refused && a.deadline > now) return true;
        a.resolve(false);
        return false;
      });
      if (kept.length > 0) this.#waiting.set(id, kept);
      else this.#waiting.delete(id);
    }
    this.#stopSweepWhenEmpty();
  }

  #stopSweepWhenEmpty(): void {
    if (this.#waiting.size > 0) return;
    clearInterval(this.#sweep);
    this.#sweep = undefined;
  }
}
