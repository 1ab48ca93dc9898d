import type { Kysely, Transaction } from 'kysely';
import type { Logger } from '@preflight/log';
import { errorMessage } from '../metrics.ts';
import type { TransactionHooks } from './types.ts';

/**
 * Runs `work` in a transaction of `db`, then the hooks it registered for how the transaction
 * ended: `afterCommit` ones after a commit, `afterRollback` ones after a rollback (and the
 * error is rethrown). A hook that throws is logged; the others still run.
 */
export async function inTransaction<DB, T>(db: Kysely<DB>, log: Logger, work: (trx: Transaction<DB>, tx: TransactionHooks) => Promise<T>): Promise<T> {
  const committed: Array<() => void> = [];
  const rolledBack: Array<() => void> = [];
  const run = (fns: Array<() => void>) => {
    for (const fn of fns) {
      try {
        fn();
      } catch (err) {
        log.error({ err: errorMessage(err) }, 'a transaction hook failed');
      }
    }
  };
  let result: T;
  try {
    result = await db.transaction().execute((trx) => work(trx, { afterCommit: (fn) => committed.push(fn), afterRollback: (fn) => rolledBack.push(fn) }));
  } catch (err) {
    run(rolledBack);
    throw err;
  }
  run(committed);
  return result;
}
