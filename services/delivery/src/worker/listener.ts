import pg from 'pg';
import type { Logger } from '@preflight/log';

/**
 * A LISTEN connection held from the pool that calls `onNotify` for every NOTIFY on `channel`
 * and after every (re)connection (NOTIFYs sent while it was down are lost, so the caller
 * drains then). Reconnects with a capped backoff; the caller's poll covers the gaps.
 */
export function startListener(pool: pg.Pool, channel: string, onNotify: () => void, logger: Logger): { close(): Promise<void> } {
  let closed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;
  let current: pg.PoolClient | undefined;

  async function open(): Promise<void> {
    if (closed) return;
    let client: pg.PoolClient | undefined;
    try {
      client = await pool.connect();
      const c = client;
      c.on('notification', () => onNotify());
      c.on('error', (err) => {
        if (closed || current !== c) return;
        logger.warn({ err: err.message }, 'delivery LISTEN connection lost');
        current = undefined;
        c.release(err);
        schedule();
      });
      await c.query(`listen ${pg.escapeIdentifier(channel)}`);
      if (closed) return void c.release();
      current = c;
      failures = 0;
      onNotify();
    } catch (err) {
      client?.release(err as Error);
      logger.warn({ err: (err as Error).message }, 'delivery LISTEN connection failed; relying on the poll');
      schedule();
    }
  }

  function schedule(): void {
    if (closed) return;
    failures += 1;
    retry = setTimeout(() => void open(), Math.min(30_000, 250 * 2 ** Math.min(failures, 7)));
  }

  void open();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      const c = current;
      current = undefined;
      if (c) {
        await c.query('unlisten *').catch(() => undefined);
        c.release();
      }
    },
  };
}
