import { sendJson } from '@preflight/http';
import { managesPeople } from '../domain/roles.ts';
import { listMembers } from '../storage/memberships.ts';
import type { Registration } from './context.ts';
import { allow, orgAndActor } from './people.ts';
import { toMemberView } from './views.ts';

/** GET /admin/v1/organizations/:orgId/members: everyone in the organisation, longest-standing first. */
export const register: Registration = (app, ctx) => {
  app.get('/admin/v1/organizations/:orgId/members', async (req, res) => {
    const { orgId, actor } = orgAndActor(req);
    allow(managesPeople(actor));
    sendJson(req, res, 200, (await listMembers(ctx.db, orgId)).map(toMemberView));
  });
};
