import { z } from 'zod';
import type { Endpoint, HttpMethod } from './endpoint.ts';
import {
  AdminCreatedInvitationSchema,
  AdminCreateInvitationRequestSchema,
  AdminInvitationSchema,
  AdminMemberSchema,
  AdminUpdateMemberRequestSchema,
} from './console-shapes.ts';

/**
 * The console's members API (docs/console.md, "Members API"): invitations and memberships of an
 * organisation, on the admin API like the rest, answered by the console service. The operator
 * may call every entry (it invites an organisation's first Owner); of the organisation's own
 * members, Owners and Admins (an Admin never makes, unmakes or invites an Owner; the service checks).
 * Request and response shapes in console-shapes.ts.
 */
const members = (method: HttpMethod, path: string) => ({ method, path, owner: 'console' as const, auth: 'admin' as const, members: 'Admin' as const });

export const CONSOLE_ENDPOINTS = {
  adminCreateInvitation: {
    ...members('POST', '/admin/v1/organizations/:orgId/invitations'),
    request: { body: AdminCreateInvitationRequestSchema },
    response: { status: 201, body: AdminCreatedInvitationSchema },
  },
  adminListInvitations: {
    ...members('GET', '/admin/v1/organizations/:orgId/invitations'),
    response: { status: 200, body: z.array(AdminInvitationSchema) },
  },
  adminRevokeInvitation: {
    ...members('DELETE', '/admin/v1/organizations/:orgId/invitations/:invitationId'),
    response: { status: 204 },
  },
  adminListMembers: {
    ...members('GET', '/admin/v1/organizations/:orgId/members'),
    response: { status: 200, body: z.array(AdminMemberSchema) },
  },
  adminUpdateMember: {
    ...members('PATCH', '/admin/v1/organizations/:orgId/members/:userId'),
    request: { body: AdminUpdateMemberRequestSchema },
    response: { status: 200, body: AdminMemberSchema },
  },
  adminRemoveMember: {
    ...members('DELETE', '/admin/v1/organizations/:orgId/members/:userId'),
    response: { status: 204 },
  },
} satisfies Record<string, Endpoint>;
