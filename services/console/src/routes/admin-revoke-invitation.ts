import { notFound, pathId } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { managesPeople } from '../domain/roles.ts';
import { revokeInvitation } from '../storage/invitations.ts';
import type { Registration } from './context.ts';
import { allow, orgAndActor } from './people.ts';

/** DELETE /admin/v1/organizations/:orgId/invitations/:invitationId: the link stops working at once; 404 when there is no pending one by that id. */
export const register: Registration = (app, ctx) =>
  route(app, 'adminRevokeInvitation', async (req, res) => {
    const { orgId, actor } = orgAndActor(req);
    allow(managesPeople(actor));
    const id = pathId(req.params.invitationId, 'invitation');
    if (!(await revokeInvitation(ctx.db, orgId, id))) throw notFound('invitation', id);
    res.status(204).end(); // no body: nothing for io.send to check
  });
