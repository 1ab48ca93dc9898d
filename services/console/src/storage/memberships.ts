import { sql, type Kysely, type Transaction } from '@preflight/db';
import type { MemberRole } from '@preflight/http';
import type { ConsoleDatabase } from './schema.ts';

/** A member of an organisation: the membership with the user's name and address. */
export interface MemberRecord {
  userId: string;
  email: string;
  name: string;
  role: MemberRole;
  joinedAt: Date;
  lastSignInAt: Date | null;
}

/** One of a user's organisations, with the name the console knows it by. */
export interface UserOrg {
  orgId: string;
  orgName: string;
  /** Whether the console knows the name (else `orgName` is the `unnamedOrg` placeholder). */
  named: boolean;
  role: MemberRole;
}

/** Shown where the console was never told an organisation's name. */
export const unnamedOrg = (orgId: string): string => `Organisation ${orgId.slice(0, 8)}`;

const memberColumns = ['m.user_id as userId', 'u.email', 'u.name', 'm.role', 'm.created_at as joinedAt', 'u.last_sign_in_at as lastSignInAt'] as const;

export async function listMembers(db: Kysely<ConsoleDatabase>, orgId: string): Promise<MemberRecord[]> {
  return db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(memberColumns)
    .where('m.org_id', '=', orgId)
    .orderBy('m.created_at')
    .orderBy('m.user_id')
    .execute();
}

export async function memberOf(db: Kysely<ConsoleDatabase>, orgId: string, userId: string): Promise<MemberRecord | undefined> {
  return db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(memberColumns)
    .where('m.org_id', '=', orgId)
    .where('m.user_id', '=', userId)
    .executeTakeFirst();
}

/** A user's organisations, oldest membership first. */
export async function orgsOfUser(db: Kysely<ConsoleDatabase>, userId: string): Promise<UserOrg[]> {
  const rows = await db
    .selectFrom('memberships as m')
    .leftJoin('org_names as o', 'o.org_id', 'm.org_id')
    .select(['m.org_id as orgId', 'm.role', 'o.name'])
    .where('m.user_id', '=', userId)
    .orderBy('m.created_at')
    .orderBy('m.org_id')
    .execute();
  return rows.map((r) => ({ orgId: r.orgId, role: r.role, orgName: r.name ?? unnamedOrg(r.orgId), named: r.name !== null }));
}

export async function insertMembership(db: Kysely<ConsoleDatabase> | Transaction<ConsoleDatabase>, m: { userId: string; orgId: string; role: MemberRole }): Promise<void> {
  // Already a member (invited twice, or by SSO before): the membership they have stays.
  await db.insertInto('memberships').values({ user_id: m.userId, org_id: m.orgId, role: m.role }).onConflict((oc) => oc.columns(['user_id', 'org_id']).doNothing()).execute();
}

/**
 * Locks the organisation's memberships for a change that must see them all (the last-Owner
 * rule): concurrent demotions of the two last Owners cannot both pass.
 */
export async function lockOrgMembers(trx: Transaction<ConsoleDatabase>, orgId: string): Promise<Array<{ userId: string; role: MemberRole }>> {
  return trx.selectFrom('memberships').select(['user_id as userId', 'role']).where('org_id', '=', orgId).forUpdate().execute();
}

export async function setRole(trx: Transaction<ConsoleDatabase>, orgId: string, userId: string, role: MemberRole): Promise<void> {
  await trx.updateTable('memberships').set({ role }).where('org_id', '=', orgId).where('user_id', '=', userId).execute();
}

export async function deleteMembership(trx: Transaction<ConsoleDatabase>, orgId: string, userId: string): Promise<void> {
  await trx.deleteFrom('memberships').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
}

/** The name the console shows for an organisation, remembered from its first invitation that named it. */
export async function rememberOrgName(db: Kysely<ConsoleDatabase>, orgId: string, name: string): Promise<void> {
  await db.insertInto('org_names').values({ org_id: orgId, name }).onConflict((oc) => oc.column('org_id').doUpdateSet({ name: sql`excluded.name` })).execute();
}

export async function orgName(db: Kysely<ConsoleDatabase>, orgId: string): Promise<string> {
  const row = await db.selectFrom('org_names').select('name').where('org_id', '=', orgId).executeTakeFirst();
  return row?.name ?? unnamedOrg(orgId);
}

export async function roleOf(db: Kysely<ConsoleDatabase>, userId: string, orgId: string): Promise<MemberRole | undefined> {
  const row = await db.selectFrom('memberships').select('role').where('user_id', '=', userId).where('org_id', '=', orgId).executeTakeFirst();
  return row?.role;
}
