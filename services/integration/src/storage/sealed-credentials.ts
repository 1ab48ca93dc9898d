import { sql, writeSealedColumns, type Kysely } from '@preflight/db';
import type { Resealed, SealedRow, SealedStore } from '@preflight/secret-box';
import { credentialsContext, inboundSecretContext, UNDECRYPTABLE } from '../domain/sealing.ts';
import { CONNECTION_COLUMNS, credentialsOf, inboundSecretOf } from './connections.ts';
import type { IntegrationDatabase } from './schema.ts';

/** The kinds of sealed part a connection holds (the gauge's and the report's labels). */
export const CREDENTIALS = 'credentials';
export const INBOUND_SECRET = 'inbound-secret';

/** The connections' sealed credentials and inbound secrets, for the key ring's walks. */
export const sealedCredentials = (db: Kysely<IntegrationDatabase>): SealedStore => ({
  read: (after, limit) => sealedCredentialsPage(db, after, limit),
  write: (changes) => writeResealedCredentials(db, changes),
});

/** Live connections' sealed credentials and inbound secrets after `afterId`, in id order (deleted ones are never opened again). */
export async function sealedCredentialsPage(db: Kysely<IntegrationDatabase>, afterId: string | undefined, limit: number): Promise<SealedRow[]> {
  let query = db.selectFrom('connections').select(CONNECTION_COLUMNS).where('deleted_at', 'is', null).orderBy('id').limit(limit);
  if (afterId !== undefined) query = query.where('id', '>', afterId);
  const rows = await query.execute();
  return rows.map((row) => {
    const inbound = inboundSecretOf(row);
    return {
      id: row.id,
      parts: [
        { kind: CREDENTIALS, sealed: credentialsOf(row), context: credentialsContext(row.id) },
        ...(inbound ? [{ kind: INBOUND_SECRET, sealed: inbound, context: inboundSecretContext(row.id) }] : []),
      ],
    };
  });
}

/**
 * Writes parts sealed again under the active key, each only where the row still holds the
 * ciphertext that was read (its IV is random per sealing): new credentials saved meanwhile
 * win. `updated_at` is left alone: the plaintext is the same, so cached provider clients stay.
 */
export async function writeResealedCredentials(db: Kysely<IntegrationDatabase>, changes: Resealed[]): Promise<number> {
  if (changes.length === 0) return 0;
  let written = 0;
  for (const [kind, prefix] of [[CREDENTIALS, 'credentials'], [INBOUND_SECRET, 'inbound']] as const) {
    written += await writeSealedColumns(db, 'connections', prefix, changes.filter((c) => c.kind === kind));
  }
  return written;
}

/**
 * Connections that waited because their credentials could not be opened, and whose
 * credentials open now (not among `stillUnopened`), become active again, their waiting jobs
 * due at once: restoring the key is enough, nobody has to save the credentials again.
 */
export async function reactivateOpened(db: Kysely<IntegrationDatabase>, stillUnopened: string[]): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .updateTable('connections')
      .set({ status: 'active', last_error: null, updated_at: sql<Date>`now()` })
      .where('status', '=', 'needs-attention')
      .where('last_error', '=', UNDECRYPTABLE)
      .where('deleted_at', 'is', null)
      .where(sql<boolean>`not (id = any(${stillUnopened}::uuid[]))`)
      .returning('id')
      .execute();
    const ids = rows.map((r) => r.id);
    if (ids.length > 0) await trx.updateTable('jobs').set({ due_at: sql<Date>`now()` }).where('connection_id', 'in', ids).where('state', '=', 'pending').execute();
    return ids;
  });
}
