import type { MemberRole } from '@preflight/http';
import type { InvitationRow } from '../storage/invitations.ts';
import type { MemberRow } from '../storage/memberships.ts';

/** A pending invitation as the members API shows it (never its token). */
export interface InvitationView {
  id: string;
  email: string;
  role: MemberRole;
  invitedBy: string | null;
  createdAt: string;
  expiresAt: string;
}

export interface MemberView {
  userId: string;
  email: string;
  name: string;
  role: MemberRole;
  joinedAt: string;
  lastSignInAt: string | null;
}

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
