import { notFound, pathId } from '@preflight/http';
import { managesPeople } from '../domain/roles.ts';
import { revokeInvitation } from '../storage/invitations.ts';
import type { Registration } from './context.ts';
import { allow, orgAndActor } from './people.ts';

/** DELETE /admin/v1/organizations/:orgId/invitations/:invitationId: the link stops working at once; 404 when there is no pending one by that id. */
export const register: Registration = (app, ctx) => {
  app.delete('/admin/v1/organizations/:orgId/invitations/:invitationId', async (req, res) => {
    const { orgId, actor } = orgAndActor(req);
    allow(managesPeople(actor));
    const id = pathId(req.params.invitationId, 'invitation');
    if (!(await revokeInvitation(ctx.db, orgId, id))) throw notFound('invitation', id);
    res.status(204).end();
  });
};
