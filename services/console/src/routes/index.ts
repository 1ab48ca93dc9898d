import { adminCreateInvitation } from './admin-create-invitation.ts';
import { adminListInvitations } from './admin-list-invitations.ts';
import { adminListMembers } from './admin-list-members.ts';
import { adminRemoveMember } from './admin-remove-member.ts';
import { adminRevokeInvitation } from './admin-revoke-invitation.ts';
import { adminUpdateMember } from './admin-update-member.ts';
import type { Registration } from './context.ts';

/** The members API (libs/contract manifest/console.ts). The pages under /console are web/router.ts's. */
export const registrations: Registration[] = [adminCreateInvitation, adminListInvitations, adminRevokeInvitation, adminListMembers, adminUpdateMember, adminRemoveMember];
