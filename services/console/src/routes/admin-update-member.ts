import { z } from 'zod';
import { AppError, MEMBER_ROLES, notFound, parseBody, pathId, sendJson, type MemberRole } from '@preflight/http';
import { keepsAnOwner, mayChangeRole } from '../domain/roles.ts';
import { lockOrgMembers, memberOf, setRole } from '../storage/memberships.ts';
import type { Registration } from './context.ts';
import { allow, orgAndActor } from './people.ts';
import { revokeSessions } from './revoke.ts';
import { toMemberView } from './views.ts';

const UpdateMember = z.object({ role: z.enum(MEMBER_ROLES as [MemberRole, ...MemberRole[]], { message: `Must be one of ${MEMBER_ROLES.join(', ')}.` }) }).strict();

/**
 * PATCH /admin/v1/organizations/:orgId/members/:userId `{role}`: 200 the member. Admins never
 * make or unmake Owners (403); the last Owner keeps the role (409). A change ends every
 * session of that user, so the new role applies from their next sign-in.
 */
export const register: Registration = (app, ctx) => {
  app.patch('/admin/v1/organizations/:orgId/members/:userId', async (req, res) => {
    const { orgId, actor } = orgAndActor(req);
    const userId = pathId(req.params.userId, 'member');
    const { role } = parseBody(UpdateMember, req.body);
    const changed = await ctx.db.transaction().execute(async (trx) => {
      const members = await lockOrgMembers(trx, orgId);
      const target = members.find((m) => m.user_id === userId);
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
    sendJson(req, res, 200, toMemberView(member));
  });
};
