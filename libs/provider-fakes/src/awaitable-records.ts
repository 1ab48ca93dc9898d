/**
 * A list of what a fake accepted (messages, cards) that a test can wait on: `waitFor` resolves
 * with the first record `match` accepts, already there or still to come.
 */
export interface AwaitableRecords<T> {
  items: T[];
  add(item: T): void;
  waitFor(match: (item: T) => boolean, timeoutMs: number): Promise<T>;
}

export function awaitableRecords<T>(what: string): AwaitableRecords<T> {
  const items: T[] = [];
  const waiters = new Set<{ match: (item: T) => boolean; resolve: (item: T) => void }>();
  return {
    items,
    add(item) {
      items.push(item);
      for (const waiter of waiters) if (waiter.match(item)) waiter.resolve(item);
    },
    waitFor(match, timeoutMs) {
      const seen = items.find(match);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = {
          match,
          resolve: (item: T) => {
            clearTimeout(timer);
            waiters.delete(waiter);
            resolve(item);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no matching ${what} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
  };
}
