import { pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { dashboardReporter } from '../domain/reporter.ts';
import type { Registration } from './context.ts';

/** POST /admin/v1/campaigns/:id/issues: the dashboard files an issue through the public pipeline. */
export const register: Registration = (app, { directory, filing }) =>
  route(app, 'adminCreateIssue', async (req, res, io) => {
    const orgScope = requireAdmin(req);
    const campaignId = pathId(req.params.id, 'campaign');
    const fields = io.body;
    const campaign = await directory.campaignFor(campaignId, orgScope);
    const created = await filing.file(campaign, { fields, reporter: dashboardReporter(fields.testerEmail) });
    res.setHeader('Location', `/admin/v1/issues/${created.id}`);
    io.send(created);
  });
