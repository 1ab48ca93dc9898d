import pg from 'pg';
import type { Logger } from '@preflight/log';

export interface ListenOptions {
  /** Where the dedicated connection comes from: a pool (one client is held) or a URL. */
  pool?: pg.Pool | undefined;
  url?: string | undefined;
  channel: string;
  /**
   * Called for every NOTIFY on the channel with its payload, and after every (re)connection
   * without one: NOTIFYs sent while it was down are lost, so the caller drains then.
   */
  onNotify: (payload?: string) => void;
  logger: Logger;
  /** Names the listener in its log lines ("outbox", "delivery"). */
  what: string;
}

const MAX_BACKOFF_MS = 30_000;

/**
 * A LISTEN connection that reconnects with a capped backoff after any error. The caller keeps
 * a slow poll of its own for the gaps.
 */
export function listenFor(opts: ListenOptions): { close(): Promise<void> } {
  if (!opts.pool && !opts.url) throw new Error(`${opts.what} LISTEN needs a pool or a url`);
  let closed = false;
  let current: { client: pg.ClientBase; dispose: (err?: Error) => Promise<void> } | undefined;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;

  async function connect(): Promise<NonNullable<typeof current>> {
    if (opts.pool) {
      const client = await opts.pool.connect();
      return { client, dispose: async (err) => client.release(err ?? true) };
    }
    const client = new pg.Client({ connectionString: opts.url });
    client.on('error', () => undefined);
    await client.connect();
    return { client, dispose: async () => client.end().catch(() => undefined) };
  }

  async function open(): Promise<void> {
    if (closed) return;
    let conn: typeof current;
    try {
      conn = await connect();
      const c = conn;
      c.client.on('notification', (n) => {
        if (n.channel === opts.channel) opts.onNotify(n.payload);
      });
      c.client.on('error', (err) => {
        if (closed || current !== c) return;
        opts.logger.warn({ err: err.message }, `${opts.what} LISTEN connection lost`);
        current = undefined;
        void c.dispose(err);
        schedule();
      });
      await c.client.query(`listen ${pg.escapeIdentifier(opts.channel)}`);
      if (closed) return void (await c.dispose());
      current = c;
      failures = 0;
      opts.onNotify();
    } catch (err) {
      if (conn) await conn.dispose(err instanceof Error ? err : undefined);
      opts.logger.warn({ err: (err as Error).message }, `${opts.what} LISTEN connection failed; relying on the poll until it is back`);
      schedule();
    }
  }

  function schedule(): void {
    if (closed) return;
    failures += 1;
    retry = setTimeout(() => void open(), Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(failures, 7)));
  }

  void open();
  return {
    async close(): Promise<void> {
      closed = true;
      clearTimeout(retry);
      const c = current;
      current = undefined;
      if (c) {
        await c.client.query('unlisten *').catch(() => undefined);
        await c.dispose();
      }
    },
  };
}
