import { z } from 'zod';

/**
 * Request and response shapes of the console's members API (console.ts; docs/console.md,
 * "Members API"). Every listed field is always present; a nullable one is null, never omitted.
 */

const uuid = z.uuid();
const dateTime = z.iso.datetime({ offset: true });

/** A member's role in an organisation, strongest first (libs/http's caller still lists them again). */
/** A console member's role in their organisation (public-api-v1.md names Owner and Admin; everyone else is a Member). */
export const MEMBER_ROLES = ['Owner', 'Admin', 'Member'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];
const role = z.enum(MEMBER_ROLES, { error: `Must be one of ${MEMBER_ROLES.join(', ')}.` });

export const AdminCreateInvitationRequestSchema = z.strictObject({
  email: z.string().trim().max(320).pipe(z.email('Must be an e-mail address.')),
  role,
  /** The organisation's name as its members see it; the operator's alone to give (organisations live in the gateway). */
  organizationName: z.string().trim().min(1).max(200).optional(),
});

/** A pending invitation: never its token. `invitedBy` is the inviting member's user id, null when the operator invited. */
export const AdminInvitationSchema = z.object({
  id: uuid,
  email: z.string(),
  role,
  invitedBy: uuid.nullable(),
  createdAt: dateTime,
  expiresAt: dateTime,
});

/** The answer of an invitation's creation: `url` carries the one-time token and is in this answer only. */
export const AdminCreatedInvitationSchema = AdminInvitationSchema.extend({ url: z.string() });

export const AdminMemberSchema = z.object({
  userId: uuid,
  email: z.string(),
  name: z.string(),
  role,
  joinedAt: dateTime,
  lastSignInAt: dateTime.nullable(),
});

export const AdminUpdateMemberRequestSchema = z.strictObject({ role });
