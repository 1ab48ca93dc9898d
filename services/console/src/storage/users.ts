import type { Kysely, Transaction } from '@preflight/db';
import type { ConsoleDatabase } from './schema.ts';

export interface UserRecord {
  id: string;
  email: string;
  name: string;
  /** Null for an account that signs in only through single sign-on. */
  passwordHash: string | null;
  createdAt: Date;
  lastSignInAt: Date | null;
}

const userColumns = ['id', 'email', 'name', 'password_hash as passwordHash', 'created_at as createdAt', 'last_sign_in_at as lastSignInAt'] as const;

/** E-mail addresses are compared lower-cased and trimmed, everywhere. */
export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

export async function userByEmail(db: Kysely<ConsoleDatabase>, email: string): Promise<UserRecord | undefined> {
  return db.selectFrom('users').select(userColumns).where('email', '=', normaliseEmail(email)).executeTakeFirst();
}

export async function userById(db: Kysely<ConsoleDatabase>, id: string): Promise<UserRecord | undefined> {
  return db.selectFrom('users').select(userColumns).where('id', '=', id).executeTakeFirst();
}

export async function insertUser(db: Kysely<ConsoleDatabase> | Transaction<ConsoleDatabase>, user: { id: string; email: string; name: string; passwordHash: string | null }): Promise<UserRecord> {
  return db
    .insertInto('users')
    .values({ id: user.id, email: normaliseEmail(user.email), name: user.name, password_hash: user.passwordHash })
    .returning(userColumns)
    .executeTakeFirstOrThrow();
}

export async function recordSignIn(db: Kysely<ConsoleDatabase>, userId: string): Promise<void> {
  await db.updateTable('users').set({ last_sign_in_at: new Date() }).where('id', '=', userId).execute();
}
