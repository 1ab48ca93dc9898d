import { conflict, notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { toAdminSigner } from '../views/signoff-view.ts';
import { addSigner } from '../storage/report.ts';
import type { Registration } from './context.ts';

/**
 * POST /admin/v1/campaigns/:id/signers {name, email}: a required signer of the readiness
 * report (201). The same e-mail twice on one campaign is 409. Adding a signer to a sealed
 * report unseals it until the new signer is in too.
 */
export const register: Registration = (app, { db, events }) =>
  route(app, 'adminAddSigner', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const { name, email } = io.body;
    const added = await addSigner(db, { campaignId: id, name, email, orgScope }, events);
    if (added.outcome === 'not_found') throw notFound('campaign', id);
    if (added.outcome === 'duplicate') throw conflict(`${email} is already a signer of this campaign.`);
    io.send(toAdminSigner(added.signer));
  });
