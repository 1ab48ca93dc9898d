import { CreateIssueRequestSchema, type ResponseOf } from '@preflight/contract';
import { parseBody, pathId, requireApiKey, sendJson } from '@preflight/http';
import { fieldsFromPublicRequest } from '../domain/issue-fields.ts';
import { apiKeyReporter } from '../domain/reporter.ts';
import type { Registration } from './context.ts';

/** POST /api/v1/campaigns/:id/issues (public-api-v1.md 4.4). */
export const register: Registration = (app, { directory, filing }) => {
  app.post('/api/v1/campaigns/:id/issues', async (req, res) => {
    const caller = requireApiKey(req);
    const campaignId = pathId(req.params.id, 'campaign');
    const body = parseBody(CreateIssueRequestSchema, req.body);
    const campaign = await directory.campaignFor(campaignId, caller.orgId);
    const created = await filing.file(campaign, { fields: fieldsFromPublicRequest(body), reporter: apiKeyReporter(caller.keyName) });
    res.setHeader('Location', `/api/v1/issues/${created.id}`);
    sendJson(req, res, 201, created satisfies ResponseOf<'createIssue'>);
  });
};
