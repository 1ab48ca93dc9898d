import { notFound, pathId, requireAdmin, sendJson } from '@preflight/http';
import { toAdminReport } from '../views/signoff-view.ts';
import { getReport } from '../storage/report.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/campaigns/:id/report: the current version, its seal and counts, every entry. */
export const register: Registration = (app, { db }) => {
  app.get('/admin/v1/campaigns/:id/report', async (req, res) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const report = await getReport(db, id, orgScope);
    if (!report) throw notFound('campaign', id);
    sendJson(req, res, 200, toAdminReport(report));
  });
};
