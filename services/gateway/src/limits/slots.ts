/** Thrown by `Slots.acquire` when no slot freed up before the deadline. */
export class QueueDeadlineExceeded extends Error {
  constructor(readonly waitedMs: number) {
    super(`no slot freed up within ${waitedMs} ms`);
    this.name = 'QueueDeadlineExceeded';
  }
}

/**
 * A counting semaphore whose waiters give up at a deadline: `size` callers hold a slot, the
 * next ones queue in arrival order and are refused once their wait passes `deadlineMs`.
 */
export class Slots {
  private inUse = 0;
  private readonly waiters: Array<{ grant: () => void; timer: NodeJS.Timeout }> = [];

  constructor(readonly size: number) {}

  get busy(): number {
    return this.inUse;
  }

  get queued(): number {
    return this.waiters.length;
  }

  /** Resolves with the release function of a slot (call it once), or rejects at the deadline. */
  acquire(deadlineMs: number): Promise<() => void> {
    if (this.inUse < this.size) {
      this.inUse++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          clearTimeout(waiter.timer);
          resolve(this.releaser());
        },
        timer: setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          reject(new QueueDeadlineExceeded(deadlineMs));
        }, deadlineMs),
      };
      this.waiters.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the first waiter, so nobody can overtake the queue.
      const next = this.waiters.shift();
      if (next) next.grant();
      else this.inUse--;
    };
  }
}

/**
 * At most `max` requests in flight per key; one more is refused at once rather than queued
 * (a key waiting on itself would only hold more of the gateway).
 */
export class PerKeyInFlight {
  private readonly counts = new Map<string, number>();

  constructor(readonly max: number) {}

  /** The release function of a place, or undefined when the key already has `max` in flight. */
  tryEnter(key: string): (() => void) | undefined {
    const count = this.counts.get(key) ?? 0;
    if (count >= this.max) return undefined;
    this.counts.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.counts.get(key) ?? 1) - 1;
      if (left <= 0) this.counts.delete(key);
      else this.counts.set(key, left);
    };
  }

  inFlight(key: string): number {
    return this.counts.get(key) ?? 0;
  }
}
