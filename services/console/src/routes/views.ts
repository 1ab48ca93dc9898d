import type { ResponseOf } from '@preflight/contract';
import type { InvitationRow } from '../storage/invitations.ts';
import type { MemberRow } from '../storage/memberships.ts';

/** A pending invitation as the members API shows it (never its token). */
type InvitationView = ResponseOf<'adminListInvitations'>[number];

type MemberView = ResponseOf<'adminListMembers'>[number];

export const toInvitationView = (row: InvitationRow): InvitationView => ({
  id: row.id,
  email: row.email,
  role: row.role,
  invitedBy: row.invited_by,
  createdAt: row.created_at.toISOString(),
  expiresAt: row.expires_at.toISOString(),
});

export const toMemberView = (row: MemberRow): MemberView => ({
  userId: row.user_id,
  email: row.email,
  name: row.name,
  role: row.role,
  joinedAt: row.created_at.toISOString(),
  lastSignInAt: row.last_sign_in_at?.toISOString() ?? null,
});
