import { notFound, pathId, requireAdmin, sendJson } from '@preflight/http';
import { toAdminSigner } from '../views/signoff-view.ts';
import { listSigners } from '../storage/report.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/campaigns/:id/signers: every signer, oldest first. */
export const register: Registration = (app, { db }) => {
  app.get('/admin/v1/campaigns/:id/signers', async (req, res) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const signers = await listSigners(db, id, orgScope);
    if (!signers) throw notFound('campaign', id);
    sendJson(req, res, 200, signers.map(toAdminSigner));
  });
};
