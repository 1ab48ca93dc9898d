import { notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { toAdminTester } from '../views/signoff-view.ts';
import { createTester } from '../storage/testers.ts';
import type { Registration } from './context.ts';

/** POST /admin/v1/campaigns/:id/testers {name, email, preview?}: 201 {id, name, email, preview, status}. */
export const register: Registration = (app, { db }) =>
  route(app, 'adminCreateTester', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const { name, email, preview } = io.body;
    const tester = await createTester(db, { campaignId: id, name, email, preview, orgScope });
    if (!tester) throw notFound('campaign', id);
    io.send(toAdminTester(tester));
  });
