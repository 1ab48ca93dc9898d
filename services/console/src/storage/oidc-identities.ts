import type { Kysely, Transaction } from '@preflight/db';
import type { ConsoleDatabase } from './schema.ts';

/** The user an identity provider's subject was linked to, if any. */
export async function userOfIdentity(db: Kysely<ConsoleDatabase>, issuer: string, subject: string): Promise<string | undefined> {
  const row = await db.selectFrom('oidc_identities').select('user_id as userId').where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst();
  return row?.userId;
}

export async function linkIdentity(db: Kysely<ConsoleDatabase> | Transaction<ConsoleDatabase>, link: { issuer: string; subject: string; userId: string }): Promise<void> {
  await db
    .insertInto('oidc_identities')
    .values({ issuer: link.issuer, subject: link.subject, user_id: link.userId })
    .onConflict((oc) => oc.columns(['issuer', 'subject']).doNothing())
    .execute();
}
