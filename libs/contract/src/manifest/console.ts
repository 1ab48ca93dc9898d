import type { Endpoint, HttpMethod } from './endpoint.ts';

/**
 * The console's members API (docs/console.md, "Members API"): invitations and memberships of an
 * organisation, on the admin API like the rest, answered by the console service. The operator
 * may call every entry (it invites an organisation's first Owner); of the organisation's own
 * members, Owners and Admins (an Admin never makes, unmakes or invites an Owner; the service checks).
 */
const members = (method: HttpMethod, path: string) => ({ method, path, owner: 'console' as const, auth: 'admin' as const, members: 'Admin' as const });

export const CONSOLE_ENDPOINTS = {
  adminCreateInvitation: members('POST', '/admin/v1/organizations/:orgId/invitations'),
  adminListInvitations: members('GET', '/admin/v1/organizations/:orgId/invitations'),
  adminRevokeInvitation: members('DELETE', '/admin/v1/organizations/:orgId/invitations/:invitationId'),
  adminListMembers: members('GET', '/admin/v1/organizations/:orgId/members'),
  adminUpdateMember: members('PATCH', '/admin/v1/organizations/:orgId/members/:userId'),
  adminRemoveMember: members('DELETE', '/admin/v1/organizations/:orgId/members/:userId'),
} satisfies Record<string, Endpoint>;
