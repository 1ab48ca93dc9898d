import { AppError, notFound, pathId } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { keepsAnOwner, mayRemove } from '../domain/roles.ts';
import { deleteMembership, lockOrgMembers } from '../storage/memberships.ts';
import type { Registration } from './context.ts';
import { allow, orgAndActor } from './people.ts';
import { revokeSessions } from './revoke.ts';

/**
 * DELETE /admin/v1/organizations/:orgId/members/:userId: 204, and every session of that user
 * ends. Admins never remove Owners (403); the last Owner stays (409). The account remains
 * (for their other organisations and later invitations).
 */
export const register: Registration = (app, ctx) =>
  route(app, 'adminRemoveMember', async (req, res) => {
    const { orgId, actor } = orgAndActor(req);
    const userId = pathId(req.params.userId, 'member');
    await ctx.db.transaction().execute(async (trx) => {
      const members = await lockOrgMembers(trx, orgId);
      const target = members.find((m) => m.userId === userId);
      if (!target) throw notFound('member', userId);
      allow(mayRemove(actor, target.role));
      const lastOwner = keepsAnOwner(members, userId, 'removed');
      if (lastOwner) throw new AppError('conflict', lastOwner);
      await deleteMembership(trx, orgId, userId);
    });
    await revokeSessions(ctx, userId);
    res.status(204).end(); // no body: nothing for io.send to check
  });
