import { notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { toAdminReport } from '../views/signoff-view.ts';
import { getReport } from '../storage/report.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/campaigns/:id/report: the current version, its seal and counts, every entry. */
export const register: Registration = (app, { db }) =>
  route(app, 'adminGetReport', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const report = await getReport(db, id, orgScope);
    if (!report) throw notFound('campaign', id);
    io.send(toAdminReport(report));
  });
