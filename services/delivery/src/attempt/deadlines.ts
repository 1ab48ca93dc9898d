/**
 * The deadline of one attempt. Whatever the attempt is waiting for (its DNS answer, then its
 * response) sets `onExpire`; the attempt clears the deadline when it is over.
 */
export interface Deadline {
  readonly expired: boolean;
  /** Called once when the deadline passes (if set then); the attempt's current wait sets it. */
  onExpire: (() => void) | undefined;
  /** The attempt is over: the deadline will not fire. */
  clear(): void;
}

class Entry implements Deadline {
  prev: Entry | undefined;
  next: Entry | undefined;
  expired = false;
  cleared = false;
  onExpire: (() => void) | undefined;

  constructor(
    readonly at: number,
    private readonly list: Deadlines,
  ) {}

  clear(): void {
    if (this.cleared) return;
    this.cleared = true;
    this.onExpire = undefined;
    this.list.remove(this);
  }
}

/**
 * Every attempt's deadline, all of the same length, in one list with one timer: a controller,
 * timer and listener per attempt cost real CPU at saturation for deadlines that almost never
 * fire (docs/benchmarks-history.md). Deadlines of the same length expire in the order they
 * were started, so the list is kept in that order by appending; clearing one unlinks it; the
 * timer is armed for the oldest, and re-armed for the next when it fires.
 */
export class Deadlines {
  private head: Entry | undefined;
  private tail: Entry | undefined;
  private timer: NodeJS.Timeout | undefined;
  private armedAt = 0;

  constructor(private readonly timeoutMs: number) {}

  start(now = performance.now()): Deadline {
    const entry = new Entry(now + this.timeoutMs, this);
    if (this.tail) {
      this.tail.next = entry;
      entry.prev = this.tail;
      this.tail = entry;
    } else {
      this.head = this.tail = entry;
      this.arm();
    }
    return entry;
  }

  /** @internal */
  remove(entry: Entry): void {
    if (entry.prev) entry.prev.next = entry.next;
    else if (this.head === entry) this.head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    else if (this.tail === entry) this.tail = entry.prev;
    entry.prev = entry.next = undefined;
    if (!this.head && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /** Deadlines not cleared yet. */
  get size(): number {
    let n = 0;
    for (let e = this.head; e; e = e.next) n += 1;
    return n;
  }

  /** Arms the timer for the oldest deadline, unless it is armed for it (or earlier) already. */
  private arm(): void {
    const head = this.head;
    if (!head) return;
    if (this.timer && this.armedAt <= head.at) return;
    if (this.timer) clearTimeout(this.timer);
    this.armedAt = head.at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, head.at - performance.now()));
  }

  private fire(): void {
    this.timer = undefined;
    const now = performance.now();
    while (this.head && this.head.at <= now) {
      const entry = this.head;
      this.remove(entry);
      entry.expired = true;
      entry.cleared = true;
      const onExpire = entry.onExpire;
      entry.onExpire = undefined;
      onExpire?.();
    }
    this.arm();
  }

  /** Stops the timer; deadlines not cleared by then never fire. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.head = this.tail = undefined;
  }
}
