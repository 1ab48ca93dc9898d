import { sql, type Kysely } from '@preflight/db';
import type { Scope } from '@preflight/contract';
import { touchLastUsedAt } from './last-used.ts';
import type { IdentityDb } from './schema.ts';

export interface ApiKeyRecord {
  id: string;
  orgId: string;
  name: string;
  scopes: Scope[];
  environment: 'live' | 'test';
  prefix: string;
  lastFour: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** What authentication needs about a key: who it is, what it may do, whether it still may. */
export interface KeyIdentity {
  keyId: string;
  keyName: string;
  scopes: Scope[];
  orgId: string;
  orgName: string;
  revoked: boolean;
}

const columns = ['id', 'org_id', 'name', 'scopes', 'environment', 'prefix', 'last_four', 'created_at', 'last_used_at', 'revoked_at'] as const;

type Row = {
  id: string;
  org_id: string;
  name: string;
  scopes: Scope[];
  environment: 'live' | 'test';
  prefix: string;
  last_four: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
};

const toRecord = (r: Row): ApiKeyRecord => ({
  id: r.id,
  orgId: r.org_id,
  name: r.name,
  scopes: r.scopes,
  environment: r.environment,
  prefix: r.prefix,
  lastFour: r.last_four,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

export async function insertApiKey(
  db: Kysely<IdentityDb>,
  values: { orgId: string; name: string; scopes: Scope[]; environment: 'live' | 'test'; keyHash: string; prefix: string; lastFour: string },
): Promise<ApiKeyRecord> {
  const row = await db
    .insertInto('api_keys')
    .values({
      org_id: values.orgId,
      name: values.name,
      scopes: values.scopes,
      environment: values.environment,
      key_hash: values.keyHash,
      prefix: values.prefix,
      last_four: values.lastFour,
    })
    .returning(columns)
    .executeTakeFirstOrThrow();
  return toRecord(row);
}

export async function listApiKeys(db: Kysely<IdentityDb>, orgId: string): Promise<ApiKeyRecord[]> {
  const rows = await db.selectFrom('api_keys').select(columns).where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute();
  return rows.map(toRecord);
}

export async function findKeyIdentityByHash(db: Kysely<IdentityDb>, keyHash: string): Promise<KeyIdentity | undefined> {
  const row = await db
    .selectFrom('api_keys as k')
    .innerJoin('organizations as o', 'o.id', 'k.org_id')
    .select(['k.id', 'k.name', 'k.scopes', 'k.revoked_at', 'o.id as org_id', 'o.name as org_name'])
    .where('k.key_hash', '=', keyHash)
    .executeTakeFirst();
  if (!row) return undefined;
  return { keyId: row.id, keyName: row.name, scopes: row.scopes, orgId: row.org_id, orgName: row.org_name, revoked: row.revoked_at !== null };
}

/**
 * Marks the key revoked (keeping the first revocation time) and returns its hash so the cache
 * entry can be replaced; undefined when the organisation has no such key.
 */
export async function revokeApiKey(db: Kysely<IdentityDb>, orgId: string, keyId: string): Promise<{ keyHash: string } | undefined> {
  const row = await db
    .updateTable('api_keys')
    .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
    .where('id', '=', keyId)
    .where('org_id', '=', orgId)
    .returning('key_hash')
    .executeTakeFirst();
  return row ? { keyHash: row.key_hash } : undefined;
}

/** At most one write a minute, whichever replica. */
export const touchLastUsed = (db: Kysely<IdentityDb>, keyId: string): Promise<void> => touchLastUsedAt(db, 'api_keys', keyId);
