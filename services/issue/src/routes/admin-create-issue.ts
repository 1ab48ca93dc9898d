import { z } from 'zod';
import { CreateIssueRequestSchema, MAX_TEXT, httpUrl, optionalText } from '@preflight/contract';
import { parseBody, pathId, requireAdmin, sendJson } from '@preflight/http';
import { dashboardReporter } from '../domain/reporter.ts';
import type { Registration } from './context.ts';

const SHORT_TEXT = 200;
const MAX_EMAIL = 320;

/**
 * Every writable field of the issue detail (admin-api-v1.md, "Issues"). The public request's
 * rules hold for the fields both share; the rest are optional text, screenshotUrl an http(s)
 * URL and testerEmail an e-mail address.
 */
export const AdminCreateIssueRequestSchema = CreateIssueRequestSchema.extend({
  stepsToReproduce: optionalText(MAX_TEXT),
  expectedBehavior: optionalText(MAX_TEXT),
  actualBehavior: optionalText(MAX_TEXT),
  pageTitle: optionalText(500),
  browserName: optionalText(SHORT_TEXT),
  browserVersion: optionalText(SHORT_TEXT),
  operatingSystem: optionalText(SHORT_TEXT),
  deviceType: optionalText(SHORT_TEXT),
  screenResolution: optionalText(SHORT_TEXT),
  screenshotUrl: httpUrl().nullish().transform((v) => v ?? null),
  testerEmail: z
    .string({ error: 'Must be a string.' })
    .trim()
    .max(MAX_EMAIL, `Must be at most ${MAX_EMAIL} characters.`)
    .pipe(z.email('Must be an e-mail address.'))
    .nullish()
    .transform((v) => v ?? null),
});

/** POST /admin/v1/campaigns/:id/issues: the dashboard files an issue through the public pipeline. */
export const register: Registration = (app, { directory, filing }) => {
  app.post('/admin/v1/campaigns/:id/issues', async (req, res) => {
    const orgScope = requireAdmin(req);
    const campaignId = pathId(req.params.id, 'campaign');
    const fields = parseBody(AdminCreateIssueRequestSchema, req.body);
    const campaign = await directory.campaignFor(campaignId, orgScope);
    const created = await filing.file(campaign, { fields, reporter: dashboardReporter(fields.testerEmail) });
    res.setHeader('Location', `/admin/v1/issues/${created.id}`);
    sendJson(req, res, 201, created);
  });
};
