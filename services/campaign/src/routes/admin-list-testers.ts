import { notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { toAdminTesterProgress } from '../views/signoff-view.ts';
import { listTesters } from '../storage/testers.ts';
import type { Registration } from './context.ts';

/**
 * GET /admin/v1/campaigns/:id/testers: every tester, oldest first, each with the tasks it has
 * completed (the shape of a completion's answer; docs/api.md, decision 44).
 */
export const register: Registration = (app, { db }) =>
  route(app, 'adminListTesters', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const testers = await listTesters(db, id, orgScope);
    if (!testers) throw notFound('campaign', id);
    io.send(testers.map((t) => toAdminTesterProgress(t.tester, t.tasks)));
  });
