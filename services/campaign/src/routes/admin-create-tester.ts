import { z } from 'zod';
import { notFound, parseBody, pathId, requireAdmin, sendJson } from '@preflight/http';
import { toAdminTester } from '../views/signoff-view.ts';
import { createTester } from '../storage/testers.ts';
import type { Registration } from './context.ts';
import { PersonSchema } from './signoff-fields.ts';

const CreateTesterSchema = PersonSchema.extend({
  preview: z
    .boolean({ error: 'Must be true or false.' })
    .nullish()
    .transform((v) => v ?? false),
});

/** POST /admin/v1/campaigns/:id/testers {name, email, preview?}: 201 {id, name, email, preview, status}. */
export const register: Registration = (app, { db }) => {
  app.post('/admin/v1/campaigns/:id/testers', async (req, res) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const body = parseBody(CreateTesterSchema, req.body);
    const tester = await createTester(db, { campaignId: id, name: body.name, email: body.email, preview: body.preview, orgScope });
    if (!tester) throw notFound('campaign', id);
    sendJson(req, res, 201, toAdminTester(tester));
  });
};
