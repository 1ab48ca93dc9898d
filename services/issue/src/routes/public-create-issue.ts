import { pathId, requireApiKey } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { fieldsFromPublicRequest } from '../domain/issue-fields.ts';
import { apiKeyReporter } from '../domain/reporter.ts';
import type { Registration } from './context.ts';

/** POST /api/v1/campaigns/:id/issues (public-api-v1.md 4.4). */
export const register: Registration = (app, { directory, filing }) =>
  route(app, 'createIssue', async (req, res, io) => {
    const caller = requireApiKey(req);
    const campaignId = pathId(req.params.id, 'campaign');
    const body = io.body;
    const campaign = await directory.campaignFor(campaignId, caller.orgId);
    const created = await filing.file(campaign, { fields: fieldsFromPublicRequest(body), reporter: apiKeyReporter(caller.keyName) });
    res.setHeader('Location', `/api/v1/issues/${created.id}`);
    io.send(created);
  });
