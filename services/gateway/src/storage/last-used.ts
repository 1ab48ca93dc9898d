import { sql, type Kysely } from '@preflight/db';
import type { IdentityDb } from './schema.ts';

/** Sets a credential's `last_used_at`, at most once a minute: the time check in SQL keeps replicas from all writing in the same minute. */
export async function touchLastUsedAt(db: Kysely<IdentityDb>, table: 'api_keys' | 'operator_tokens', id: string): Promise<void> {
  await db
    .updateTable(table)
    .set({ last_used_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`)]))
    .execute();
}
