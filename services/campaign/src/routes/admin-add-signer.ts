import { conflict, notFound, parseBody, pathId, requireAdmin, sendJson } from '@preflight/http';
import { toAdminSigner } from '../views/signoff-view.ts';
import { addSigner } from '../storage/report.ts';
import type { Registration } from './context.ts';
import { PersonSchema } from './signoff-fields.ts';

/**
 * POST /admin/v1/campaigns/:id/signers {name, email}: a required signer of the readiness
 * report (201). The same e-mail twice on one campaign is 409. Adding a signer to a sealed
 * report unseals it until the new signer is in too.
 */
export const register: Registration = (app, { db, events }) => {
  app.post('/admin/v1/campaigns/:id/signers', async (req, res) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const body = parseBody(PersonSchema, req.body);
    const added = await addSigner(db, { campaignId: id, name: body.name, email: body.email, orgScope }, events);
    if (added.outcome === 'not_found') throw notFound('campaign', id);
    if (added.outcome === 'duplicate') throw conflict(`${body.email} is already a signer of this campaign.`);
    sendJson(req, res, 201, toAdminSigner(added.signer));
  });
};
