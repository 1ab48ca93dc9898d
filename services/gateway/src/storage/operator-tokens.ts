import { sql, type Kysely } from '@preflight/db';
import { touchLastUsedAt } from './last-used.ts';
import type { IdentityDb, OperatorScope } from './schema.ts';

export interface OperatorTokenRecord {
  id: string;
  name: string;
  scopes: OperatorScope[];
  prefix: string;
  lastFour: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** What authentication needs about an operator token (cached in Redis as JSON, hence the string date). */
export interface OperatorIdentity {
  tokenId: string;
  name: string;
  scopes: OperatorScope[];
  /** ISO-8601, or null for a token that never expires. */
  expiresAt: string | null;
  revoked: boolean;
}

const columns = ['id', 'name', 'scopes', 'prefix', 'last_four', 'created_at', 'expires_at', 'last_used_at', 'revoked_at'] as const;

type Row = {
  id: string;
  name: string;
  scopes: OperatorScope[];
  prefix: string;
  last_four: string;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
};

const toRecord = (r: Row): OperatorTokenRecord => ({
  id: r.id,
  name: r.name,
  scopes: r.scopes,
  prefix: r.prefix,
  lastFour: r.last_four,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

export async function insertOperatorToken(
  db: Kysely<IdentityDb>,
  values: { name: string; scopes: OperatorScope[]; expiresAt: Date | null; tokenHash: string; prefix: string; lastFour: string },
): Promise<OperatorTokenRecord> {
  const row = await db
    .insertInto('operator_tokens')
    .values({
      name: values.name,
      scopes: values.scopes,
      expires_at: values.expiresAt,
      token_hash: values.tokenHash,
      prefix: values.prefix,
      last_four: values.lastFour,
    })
    .returning(columns)
    .executeTakeFirstOrThrow();
  return toRecord(row);
}

/** Oldest first, revoked and expired ones included (as API keys). */
export async function listOperatorTokens(db: Kysely<IdentityDb>): Promise<OperatorTokenRecord[]> {
  const rows = await db.selectFrom('operator_tokens').select(columns).orderBy('created_at').orderBy('id').execute();
  return rows.map(toRecord);
}

export async function findOperatorIdentityByHash(db: Kysely<IdentityDb>, tokenHash: string): Promise<OperatorIdentity | undefined> {
  const row = await db
    .selectFrom('operator_tokens')
    .select(['id', 'name', 'scopes', 'expires_at', 'revoked_at'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  return { tokenId: row.id, name: row.name, scopes: row.scopes, expiresAt: row.expires_at?.toISOString() ?? null, revoked: row.revoked_at !== null };
}

/** Marks the token revoked (keeping the first revocation time) and returns its hash; undefined when there is no such token. */
export async function revokeOperatorToken(db: Kysely<IdentityDb>, id: string): Promise<{ tokenHash: string } | undefined> {
  const row = await db
    .updateTable('operator_tokens')
    .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
    .where('id', '=', id)
    .returning('token_hash')
    .executeTakeFirst();
  return row ? { tokenHash: row.token_hash } : undefined;
}

/** As API keys' `touchLastUsed`: at most one write a minute, whichever replica. */
export const touchOperatorTokenLastUsed = (db: Kysely<IdentityDb>, id: string): Promise<void> => touchLastUsedAt(db, 'operator_tokens', id);
