import type { Kysely, Selectable, Transaction } from '@preflight/db';
import type { ConsoleDatabase, UsersTable } from './schema.ts';

export type UserRow = Selectable<UsersTable>;

/** E-mail addresses are compared lower-cased and trimmed, everywhere. */
export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

export async function userByEmail(db: Kysely<ConsoleDatabase>, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', normaliseEmail(email)).executeTakeFirst();
}

export async function userById(db: Kysely<ConsoleDatabase>, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertUser(db: Kysely<ConsoleDatabase> | Transaction<ConsoleDatabase>, user: { id: string; email: string; name: string; passwordHash: string | null }): Promise<UserRow> {
  return db
    .insertInto('users')
    .values({ id: user.id, email: normaliseEmail(user.email), name: user.name, password_hash: user.passwordHash })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function recordSignIn(db: Kysely<ConsoleDatabase>, userId: string): Promise<void> {
  await db.updateTable('users').set({ last_sign_in_at: new Date() }).where('id', '=', userId).execute();
}
