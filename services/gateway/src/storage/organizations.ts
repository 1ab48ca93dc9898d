import type { Kysely } from '@preflight/db';
import type { IdentityDb } from './schema.ts';

export interface Organization {
  id: string;
  name: string;
  createdAt: Date;
}

export async function insertOrganization(db: Kysely<IdentityDb>, name: string): Promise<Organization> {
  const row = await db.insertInto('organizations').values({ name }).returning(['id', 'name', 'created_at']).executeTakeFirstOrThrow();
  return { id: row.id, name: row.name, createdAt: row.created_at };
}

/** Oldest first: the list grows at the end, so a client paging by eye never sees it shift. */
export async function listOrganizations(db: Kysely<IdentityDb>): Promise<Organization[]> {
  const rows = await db.selectFrom('organizations').select(['id', 'name', 'created_at']).orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at }));
}

export async function findOrganization(db: Kysely<IdentityDb>, id: string): Promise<Organization | undefined> {
  const row = await db.selectFrom('organizations').select(['id', 'name', 'created_at']).where('id', '=', id).executeTakeFirst();
  return row && { id: row.id, name: row.name, createdAt: row.created_at };
}

export async function organizationExists(db: Kysely<IdentityDb>, id: string): Promise<boolean> {
  const row = await db.selectFrom('organizations').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}
