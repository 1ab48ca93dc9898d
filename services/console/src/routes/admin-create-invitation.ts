import { AppError } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { mayInvite } from '../domain/roles.ts';
import { insertInvitation } from '../storage/invitations.ts';
import { memberOf, rememberOrgName } from '../storage/memberships.ts';
import { userByEmail } from '../storage/users.ts';
import type { Registration } from './context.ts';
import { allow, orgAndActor } from './people.ts';
import { toInvitationView } from './views.ts';

/**
 * POST /admin/v1/organizations/:orgId/invitations: a one-time link for `email` to join as
 * `role`, valid CONSOLE_INVITATION_TTL_SECONDS. The link (with its token) is in this answer
 * only. The operator invites an organisation's first Owner this way.
 */
export const register: Registration = (app, ctx) =>
  route(app, 'adminCreateInvitation', async (req, _res, io) => {
    const { orgId, actor } = orgAndActor(req);
    const body = io.body;
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
    io.send({ ...toInvitationView(row), url: `${ctx.publicOrigin}/console/invitations/${token}` });
  });
