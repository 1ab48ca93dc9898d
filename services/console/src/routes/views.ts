import type { ResponseOf } from '@preflight/contract';
import type { InvitationRecord } from '../storage/invitations.ts';
import type { MemberRecord } from '../storage/memberships.ts';

/** A pending invitation as the members API shows it (never its token). */
type InvitationView = ResponseOf<'adminListInvitations'>[number];

type MemberView = ResponseOf<'adminListMembers'>[number];

export const toInvitationView = (invitation: InvitationRecord): InvitationView => ({
  id: invitation.id,
  email: invitation.email,
  role: invitation.role,
  invitedBy: invitation.invitedBy,
  createdAt: invitation.createdAt.toISOString(),
  expiresAt: invitation.expiresAt.toISOString(),
});

export const toMemberView = (member: MemberRecord): MemberView => ({
  userId: member.userId,
  email: member.email,
  name: member.name,
  role: member.role,
  joinedAt: member.joinedAt.toISOString(),
  lastSignInAt: member.lastSignInAt?.toISOString() ?? null,
});
