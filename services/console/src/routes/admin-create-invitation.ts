import { z } from 'zod';
import { AppError, MEMBER_ROLES, parseBody, sendJson, type MemberRole } from '@preflight/http';
import { mayInvite } from '../domain/roles.ts';
import { insertInvitation } from '../storage/invitations.ts';
import { memberOf, rememberOrgName } from '../storage/memberships.ts';
import { userByEmail } from '../storage/users.ts';
import type { Registration } from './context.ts';
import { allow, orgAndActor } from './people.ts';
import { toInvitationView } from './views.ts';

const CreateInvitation = z
  .object({
    email: z.string().trim().max(320).pipe(z.email('Must be an e-mail address.')),
    role: z.enum(MEMBER_ROLES as [MemberRole, ...MemberRole[]], { message: `Must be one of ${MEMBER_ROLES.join(', ')}.` }),
    /** The organisation's name as its members see it; the operator's alone to give (organisations live in the gateway). */
    organizationName: z.string().trim().min(1).max(200).optional(),
  })
  .strict();

/**
 * POST /admin/v1/organizations/:orgId/invitations: a one-time link for `email` to join as
 * `role`, valid CONSOLE_INVITATION_TTL_SECONDS. The link (with its token) is in this answer
 * only. The operator invites an organisation's first Owner this way.
 */
export const register: Registration = (app, ctx) => {
  app.post('/admin/v1/organizations/:orgId/invitations', async (req, res) => {
    const { orgId, actor } = orgAndActor(req);
    const body = parseBody(CreateInvitation, req.body);
    allow(mayInvite(actor, body.role));
    if (body.organizationName !== undefined && actor.kind !== 'operator') {
      throw new AppError('validation', 'One or more fields are invalid.', { errors: { organizationName: ['Only the operator names the organisation.'] } });
    }
    const existing = await userByEmail(ctx.db, body.email);
    if (existing && (await memberOf(ctx.db, orgId, existing.id))) throw new AppError('conflict', `${body.email} is already a member of this organisation.`);
    if (body.organizationName !== undefined) await rememberOrgName(ctx.db, orgId, body.organizationName);
    const { row, token } = await insertInvitation(ctx.db, {
      orgId,
      email: body.email,
      role: body.role,
      invitedBy: actor.kind === 'member' ? actor.userId : null,
      ttlSeconds: ctx.invitationTtlSeconds,
    });
    sendJson(req, res, 201, { ...toInvitationView(row), url: `${ctx.publicOrigin}/console/invitations/${token}` });
  });
};
