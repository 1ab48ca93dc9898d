import { writeSealedColumns, type Kysely } from '@preflight/db';
import type { Resealed, SealedRow, SealedStore } from '@preflight/secret-box';
import { secretContext } from '../domain/secret-context.ts';
import type { WebhookDatabase } from './schema.ts';
import { sealedPreviousSecret, sealedSecret, selectEndpoint } from './webhooks.ts';

/** The kinds of sealed part a webhook row holds (the gauge's and the report's labels). */
export const SIGNING_SECRET = 'signing-secret';
export const PREVIOUS_SIGNING_SECRET = 'previous-signing-secret';

/** The endpoints' sealed secrets, for the key ring's walks. */
export const sealedSecrets = (db: Kysely<WebhookDatabase>): SealedStore => ({
  read: (after, limit) => sealedSecretsPage(db, after, limit),
  write: (changes) => writeResealedSecrets(db, changes),
});

/**
 * Every endpoint's sealed secrets after `afterId`, in id order: the current one, and the
 * previous one while its grace lasts (an expired one is never opened again, so neither counted
 * nor rewritten). Deleted endpoints are gone from the table.
 */
export async function sealedSecretsPage(db: Kysely<WebhookDatabase>, afterId: string | undefined, limit: number): Promise<SealedRow[]> {
  let query = selectEndpoint(db).orderBy('id').limit(limit);
  if (afterId !== undefined) query = query.where('id', '>', afterId);
  const rows = await query.execute();
  return rows.map((row) => {
    const context = secretContext(row.id);
    const previous = row.previousLive ? sealedPreviousSecret(row) : null;
    return {
      id: row.id,
      parts: [{ kind: SIGNING_SECRET, sealed: sealedSecret(row), context }, ...(previous ? [{ kind: PREVIOUS_SIGNING_SECRET, sealed: previous, context }] : [])],
    };
  });
}

/**
 * Writes secrets sealed again under the active key, each only where the row still holds the
 * ciphertext that was read (its IV is random per sealing): a rotation that ran meanwhile wins.
 * One statement per kind of part; rows are locked in id order, like the outcome batches lock
 * them, so the two cannot deadlock. Answers how many parts were written.
 */
export async function writeResealedSecrets(db: Kysely<WebhookDatabase>, changes: Resealed[]): Promise<number> {
  if (changes.length === 0) return 0;
  return db.transaction().execute(async (trx) => {
    const ids = [...new Set(changes.map((c) => c.id))].sort();
    await trx.selectFrom('webhooks').select('id').where('id', 'in', ids).orderBy('id').forUpdate().execute();
    let written = 0;
    for (const [kind, prefix] of [[SIGNING_SECRET, 'secret'], [PREVIOUS_SIGNING_SECRET, 'previous_secret']] as const) {
      written += await writeSealedColumns(trx, 'webhooks', prefix, changes.filter((c) => c.kind === kind));
    }
    return written;
  });
}
