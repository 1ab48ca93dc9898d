import type pg from 'pg';

/**
 * Relays running in this process, with the pool they were given. A writer whose connection is
 * checked out of such a pool (and whose schema is the relay's) needs no NOTIFY: the relay sees
 * the connection go back to the pool, which kysely does only after COMMIT (or ROLLBACK) has
 * answered, and wakes then. See `enqueueEvent`.
 */
export interface LocalRelay {
  schema: string;
  /** Backend pids of the pool's connections checked out right now. */
  checkedOut: Set<number>;
  /** Connections that enqueued an event in their current transaction: wake when they return. */
  awaiting: Set<number>;
}
export const localRelays = new Set<LocalRelay>();

const backendPid = (client: pg.PoolClient): number | undefined => (client as unknown as { processID?: number | null }).processID ?? undefined;

/**
 * Registers a relay of this process for `enqueueEvent`'s wake-up (see `LocalRelay`): tracks
 * which of the pool's connections are checked out, and calls `onCommit` when one that
 * enqueued an event comes back. pg-pool emits `release` synchronously from `client.release()`,
 * which kysely calls once COMMIT has answered, so the rows are visible to the next claim.
 */
export function watchPool(pool: pg.Pool, schema: string, onCommit: () => void): { close(): void } {
  const relay: LocalRelay = { schema, checkedOut: new Set(), awaiting: new Set() };
  const onAcquire = (client: pg.PoolClient) => {
    const pid = backendPid(client);
    if (pid !== undefined) relay.checkedOut.add(pid);
  };
  const onRelease = (_err: Error, client: pg.PoolClient) => {
    const pid = backendPid(client);
    if (pid === undefined) return;
    relay.checkedOut.delete(pid);
    if (relay.awaiting.delete(pid)) onCommit();
  };
  pool.on('acquire', onAcquire);
  pool.on('release', onRelease);
  localRelays.add(relay);
  return {
    close() {
      localRelays.delete(relay);
      pool.off('acquire', onAcquire);
      // Writers still in a transaction get no wake-up from this relay any more: their rows wait
      // for another replica's poll or the next relay's drain at start, as after a crash.
      pool.off('release', onRelease);
    },
  };
}
