import { notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { toAdminSigner } from '../views/signoff-view.ts';
import { listSigners } from '../storage/report.ts';
import type { Registration } from './context.ts';

/** GET /admin/v1/campaigns/:id/signers: every signer, oldest first. */
export const register: Registration = (app, { db }) =>
  route(app, 'adminListSigners', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const signers = await listSigners(db, id, orgScope);
    if (!signers) throw notFound('campaign', id);
    io.send(signers.map(toAdminSigner));
  });
