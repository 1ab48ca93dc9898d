import { route } from '@preflight/service-kit';
import { allow, orgAndActor } from './people.ts';
import { managesPeople } from '../domain/roles.ts';
import { pendingInvitations } from '../storage/invitations.ts';
import type { Registration } from './context.ts';
import { toInvitationView } from './views.ts';

/** GET /admin/v1/organizations/:orgId/invitations: the pending ones (not used, revoked or expired), newest first, without tokens. */
export const register: Registration = (app, ctx) =>
  route(app, 'adminListInvitations', async (req, _res, { send }) => {
    const { orgId, actor } = orgAndActor(req);
    allow(managesPeople(actor));
    send((await pendingInvitations(ctx.db, orgId)).map(toInvitationView));
  });
