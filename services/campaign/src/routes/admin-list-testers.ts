import { notFound, pathId, requireAdmin, sendJson } from '@preflight/http';
import { toAdminTesterProgress } from '../views/signoff-view.ts';
import { listTesters } from '../storage/testers.ts';
import type { Registration } from './context.ts';

/**
 * GET /admin/v1/campaigns/:id/testers: every tester, oldest first, each with the tasks it has
 * completed (the shape of a completion's answer; docs/api.md, decision 44).
 */
export const register: Registration = (app, { db }) => {
  app.get('/admin/v1/campaigns/:id/testers', async (req, res) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const testers = await listTesters(db, id, orgScope);
    if (!testers) throw notFound('campaign', id);
    sendJson(req, res, 200, testers.map((t) => toAdminTesterProgress(t.tester, t.tasks)));
  });
};
