import { z } from 'zod';
import type { Endpoint } from './endpoint.ts';
import { admin } from './admin/access.ts';
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
export const CONSOLE_ENDPOINTS = {
  adminCreateInvitation: admin('POST', '/admin/v1/organizations/:orgId/invitations', 'console', 'Admin', { request: { body: AdminCreateInvitationRequestSchema }, response: { status: 201, body: AdminCreatedInvitationSchema } }),
  adminListInvitations: admin('GET', '/admin/v1/organizations/:orgId/invitations', 'console', 'Admin', { response: { status: 200, body: z.array(AdminInvitationSchema) } }),
  adminRevokeInvitation: admin('DELETE', '/admin/v1/organizations/:orgId/invitations/:invitationId', 'console', 'Admin', { response: { status: 204 } }),
  adminListMembers: admin('GET', '/admin/v1/organizations/:orgId/members', 'console', 'Admin', { response: { status: 200, body: z.array(AdminMemberSchema) } }),
  adminUpdateMember: admin('PATCH', '/admin/v1/organizations/:orgId/members/:userId', 'console', 'Admin', { request: { body: AdminUpdateMemberRequestSchema }, response: { status: 200, body: AdminMemberSchema } }),
  adminRemoveMember: admin('DELETE', '/admin/v1/organizations/:orgId/members/:userId', 'console', 'Admin', { response: { status: 204 } }),
} satisfies Record<string, Endpoint>;
