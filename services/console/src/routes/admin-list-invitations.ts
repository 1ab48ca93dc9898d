import { sendJson } from '@preflight/http';
import { allow, orgAndActor } from './people.ts';
import { managesPeople } from '../domain/roles.ts';
import { pendingInvitations } from '../storage/invitations.ts';
import type { Registration } from './context.ts';
import { toInvitationView } from './views.ts';

/** GET /admin/v1/organizations/:orgId/invitations: the pending ones (not used, revoked or expired), newest first, without tokens. */
export const register: Registration = (app, ctx) => {
  app.get('/admin/v1/organizations/:orgId/invitations', async (req, res) => {
    const { orgId, actor } = orgAndActor(req);
    allow(managesPeople(actor));
    sendJson(req, res, 200, (await pendingInvitations(ctx.db, orgId)).map(toInvitationView));
  });
};
