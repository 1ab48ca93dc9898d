import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from '@preflight/db';
import type { MemberRole } from '@preflight/http';
import type { ConsoleDatabase } from './schema.ts';
import { normaliseEmail } from './users.ts';

/** An invitation as the service uses it: never its token's hash. */
export interface InvitationRecord {
  id: string;
  orgId: string;
  email: string;
  role: MemberRole;
  /** The inviting member's user id; null when the operator invited. */
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
}

const invitationColumns = [
  'id',
  'org_id as orgId',
  'email',
  'role',
  'invited_by as invitedBy',
  'created_at as createdAt',
  'expires_at as expiresAt',
  'accepted_at as acceptedAt',
  'revoked_at as revokedAt',
] as const;

/** Invitation tokens are bearer secrets: only their SHA-256 is stored. */
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/** A new invitation and its one-time token (returned once, to build the link). */
export async function insertInvitation(
  db: Kysely<ConsoleDatabase>,
  input: { orgId: string; email: string; role: MemberRole; invitedBy: string | null; ttlSeconds: number },
): Promise<{ row: InvitationRecord; token: string }> {
  const token = randomBytes(32).toString('base64url');
  const row = await db
    .insertInto('invitations')
    .values({
      id: randomUUID(),
      org_id: input.orgId,
      email: normaliseEmail(input.email),
      role: input.role,
      token_hash: tokenHash(token),
      invited_by: input.invitedBy,
      // From the database's clock, like created_at: the two are exactly the TTL apart.
      expires_at: sql<Date>`now() + make_interval(secs => ${input.ttlSeconds})`,
    })
    .returning(invitationColumns)
    .executeTakeFirstOrThrow();
  return { row, token };
}

/** Invitations of an organisation still waiting: not accepted, not revoked, not expired; newest first. */
export async function pendingInvitations(db: Kysely<ConsoleDatabase>, orgId: string): Promise<InvitationRecord[]> {
  return db
    .selectFrom('invitations')
    .select(invitationColumns)
    .where('org_id', '=', orgId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** Pending invitations for one e-mail address (single sign-on admits their holders). */
export async function pendingInvitationsFor(db: Kysely<ConsoleDatabase>, email: string): Promise<InvitationRecord[]> {
  return db
    .selectFrom('invitations')
    .select(invitationColumns)
    .where('email', '=', normaliseEmail(email))
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .orderBy('created_at')
    .execute();
}

/** Revokes a pending invitation of the organisation; false when there is none by that id (or it is used up). */
export async function revokeInvitation(db: Kysely<ConsoleDatabase>, orgId: string, id: string): Promise<boolean> {
  const result = await db
    .updateTable('invitations')
    .set({ revoked_at: new Date() })
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function invitationByToken(db: Kysely<ConsoleDatabase>, token: string): Promise<InvitationRecord | undefined> {
  return db.selectFrom('invitations').select(invitationColumns).where('token_hash', '=', tokenHash(token)).executeTakeFirst();
}

/** The invitation, locked for its one-time use. */
export async function lockInvitation(trx: Transaction<ConsoleDatabase>, id: string): Promise<InvitationRecord | undefined> {
  return trx.selectFrom('invitations').select(invitationColumns).where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function markAccepted(trx: Transaction<ConsoleDatabase>, id: string): Promise<void> {
  await trx.updateTable('invitations').set({ accepted_at: new Date() }).where('id', '=', id).execute();
}

/** Why an invitation can no longer be used, or undefined while it can. */
export function invitationState(row: InvitationRecord, now = new Date()): 'accepted' | 'revoked' | 'expired' | undefined {
  if (row.acceptedAt) return 'accepted';
  if (row.revokedAt) return 'revoked';
  if (row.expiresAt <= now) return 'expired';
  return undefined;
}
