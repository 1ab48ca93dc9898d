/**
 * Group commit: `add` queues an item and resolves with its result once the batch holding it
 * is written. While one batch is being written, new items gather for the next, so batches grow
 * with the load by themselves and a lone item is written at once (no added wait, unless
 * `lingerMs` asks for one). A batch that
 * fails is retried item by item, so one bad item cannot fail the others.
 */
export class Batcher<T, R> {
  #queue: Array<{ item: T; resolve: (r: R) => void; reject: (e: unknown) => void }> = [];
  #writing = false;
  #idle: Array<() => void> = [];
  /** Ends a linger early: set while a batch waits, called when the queue fills up. */
  #filled: (() => void) | undefined;

  /**
   * `lingerMs`: how long a batch that is not full waits for more items before it is written
   * (default 0: at once). For writers whose items may be written a few ms late (a log, say),
   * so that a steady trickle makes a few larger batches instead of many of one or two.
   */
  constructor(
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly maxBatch: number,
    private readonly lingerMs = 0,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (this.#filled && this.#queue.length >= this.maxBatch) this.#filled();
      if (!this.#writing) void this.#drain();
    });
  }

  /** Nothing queued and nothing being written. */
  get idle(): boolean {
    return !this.#writing && this.#queue.length === 0;
  }

  /** Resolves once everything queued so far is written (or failed). */
  flushed(): Promise<void> {
    if (!this.#writing && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#queue.length > 0) {
      if (this.lingerMs > 0 && this.#queue.length < this.maxBatch) await this.#linger();
      const batch = this.#queue.splice(0, this.maxBatch);
      try {
        const results = await this.write(batch.map((b) => b.item));
        batch.forEach((b, i) => b.resolve(results[i]!));
      } catch (err) {
        if (batch.length === 1) batch[0]!.reject(err);
        else {
          for (const b of batch) {
            try {
              const [r] = await this.write([b.item]);
              b.resolve(r!);
            } catch (e) {
              b.reject(e);
            }
          }
        }
      }
    }
    this.#writing = false;
    for (const resolve of this.#idle.splice(0)) resolve();
  }

  #linger(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#filled = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.lingerMs);
      this.#filled = done;
    });
  }
}

/**
 * A `Batcher` per key, for writes that must not share a batch across keys (one campaign's
 * issues, say): batches of different keys are written concurrently, those of one key one after
 * the other. A key's batcher is dropped once it is idle, so keys cost nothing between bursts.
 */
export class KeyedBatcher<K, T, R> {
  readonly #batchers = new Map<K, Batcher<T, R>>();

  constructor(
    private readonly write: (key: K, items: T[]) => Promise<R[]>,
    private readonly maxBatch: number,
  ) {}

  add(key: K, item: T): Promise<R> {
    let batcher = this.#batchers.get(key);
    if (!batcher) {
      const created = new Batcher<T, R>((items) => this.write(key, items), this.maxBatch);
      this.#batchers.set(key, created);
      batcher = created;
    }
    const result = batcher.add(item);
    const own = batcher;
    void result
      .catch(() => undefined)
      .then(() => {
        if (own.idle && this.#batchers.get(key) === own) this.#batchers.delete(key);
      });
    return result;
  }

  /** Keys with a batcher right now (for tests and metrics). */
  get size(): number {
    return this.#batchers.size;
  }
}
