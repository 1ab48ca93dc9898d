import type { Kysely, Transaction } from '@preflight/db';
import { insertMembership } from '../storage/memberships.ts';
import { invitationState, lockInvitation, markAccepted, type InvitationRecord } from '../storage/invitations.ts';
import type { ConsoleDatabase } from '../storage/schema.ts';
import type { UserRecord } from '../storage/users.ts';

/** The invitation was used up (accepted, revoked, expired) between showing it and accepting it. */
export class InvitationGone extends Error {
  override readonly name = 'InvitationGone';
  constructor(readonly reason: 'accepted' | 'revoked' | 'expired') {
    super(`the invitation was ${reason}`);
  }
}

/** Accepts one invitation inside `trx`: the row locked and checked again, so one link works once. */
export async function acceptIn(trx: Transaction<ConsoleDatabase>, invitation: InvitationRecord, userId: string): Promise<void> {
  const locked = await lockInvitation(trx, invitation.id);
  const reason = locked ? invitationState(locked) : 'revoked';
  if (reason) throw new InvitationGone(reason);
  await insertMembership(trx, { userId, orgId: invitation.orgId, role: invitation.role });
  await markAccepted(trx, invitation.id);
}

/**
 * Accepts an invitation for the user `member` gives (made in the same transaction for a new
 * account), once.
 */
export async function acceptInvitation(db: Kysely<ConsoleDatabase>, invitation: InvitationRecord, member: (trx: Transaction<ConsoleDatabase>) => Promise<UserRecord>): Promise<UserRecord> {
  return db.transaction().execute(async (trx) => {
    const user = await member(trx);
    await acceptIn(trx, invitation, user.id);
    return user;
  });
}
