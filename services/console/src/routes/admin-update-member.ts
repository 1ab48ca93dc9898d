import { AppError, notFound, pathId } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { keepsAnOwner, mayChangeRole } from '../domain/roles.ts';
import { lockOrgMembers, memberOf, setRole } from '../storage/memberships.ts';
import type { Registration } from './context.ts';
import { allow, orgAndActor } from './people.ts';
import { revokeSessions } from './revoke.ts';
import { toMemberView } from './views.ts';

/**
 * PATCH /admin/v1/organizations/:orgId/members/:userId `{role}`: 200 the member. Admins never
 * make or unmake Owners (403); the last Owner keeps the role (409). A change ends every
 * session of that user, so the new role applies from their next sign-in.
 */
export const register: Registration = (app, ctx) =>
  route(app, 'adminUpdateMember', async (req, _res, io) => {
    const { orgId, actor } = orgAndActor(req);
    const userId = pathId(req.params.userId, 'member');
    const { role } = io.body;
    const changed = await ctx.db.transaction().execute(async (trx) => {
      const members = await lockOrgMembers(trx, orgId);
      const target = members.find((m) => m.userId === userId);
      if (!target) throw notFound('member', userId);
      allow(mayChangeRole(actor, target.role, role));
      if (target.role === role) return false;
      const lastOwner = keepsAnOwner(members, userId, role);
      if (lastOwner) throw new AppError('conflict', lastOwner);
      await setRole(trx, orgId, userId, role);
      return true;
    });
    if (changed) await revokeSessions(ctx, userId);
    const member = await memberOf(ctx.db, orgId, userId);
    if (!member) throw notFound('member', userId);
    io.send(toMemberView(member));
  });
