import { pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { toIssuePage } from '../views/issue-view.ts';
import { listIssues } from '../storage/issue-list.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/campaigns/:id/issues: the public list, for a campaign of any organisation (a console member: of theirs). */
export const register: Registration = (app, { db, directory }) =>
  route(app, 'adminListIssues', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const campaignId = pathId(req.params.id, 'campaign');
    const query = io.query;
    await directory.campaignFor(campaignId, orgScope);
    const { rows, total } = await listIssues(db, { campaignId, ...query });
    io.send(toIssuePage(rows, total, query));
  });
