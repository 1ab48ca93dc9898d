import { route } from '@preflight/service-kit';
import { managesPeople } from '../domain/roles.ts';
import { listMembers } from '../storage/memberships.ts';
import type { Registration } from './context.ts';
import { allow, orgAndActor } from './people.ts';
import { toMemberView } from './views.ts';

/** GET /admin/v1/organizations/:orgId/members: everyone in the organisation, longest-standing first. */
export const register: Registration = (app, ctx) =>
  route(app, 'adminListMembers', async (req, _res, { send }) => {
    const { orgId, actor } = orgAndActor(req);
    allow(managesPeople(actor));
    send((await listMembers(ctx.db, orgId)).map(toMemberView));
  });
