import type pg from 'pg';

/**
 * Runs `insert` for every chunk, each session taking the next chunk as soon as it is free (the
 * statements are CPU-bound on the server: one session per core), and logs progress in fifths of
 * `total` rows (`rowsOf` a chunk).
 */
export async function insertChunks<C>(
  clients: pg.Client[],
  chunks: C[],
  o: { rowsOf(chunk: C): number; total: number; insert(client: pg.Client, chunk: C): Promise<unknown>; progress(done: number): void },
): Promise<void> {
  const queue = [...chunks];
  let done = 0;
  let reported = 0;
  await Promise.all(
    clients.map(async (client) => {
      for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
        await o.insert(client, c);
        done += o.rowsOf(c);
        if (done - reported >= o.total / 5 || done === o.total) {
          o.progress(done);
          reported = done;
        }
      }
    }),
  );
}
