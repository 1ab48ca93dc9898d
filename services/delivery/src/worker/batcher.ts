/**
 * Group commit: `add` queues an item and resolves with its result once the batch holding it
 * is written. While one batch is being written, new items gather for the next, so batches grow
 * with the load by themselves and a lone item is written at once (no added wait). A batch that
 * fails is retried item by item, so one bad item cannot fail the others.
 */
export class Batcher<T, R> {
  #queue: Array<{ item: T; resolve: (r: R) => void; reject: (e: unknown) => void }> = [];
  #writing = false;
  #idle: Array<() => void> = [];

  constructor(
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly maxBatch: number,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (!this.#writing) void this.#drain();
    });
  }

  /** Resolves once everything queued so far is written (or failed). */
  flushed(): Promise<void> {
    if (!this.#writing && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#queue.length > 0) {
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
}
