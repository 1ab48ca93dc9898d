import { conflict, notFound, parseBody, pathId, requireAdmin, sendJson } from '@preflight/http';
import { toAdminSigner } from '../views/signoff-shapes.ts';
import { addSigner, listSigners, removeSigner } from '../storage/report.ts';
import type { RegisterRoute } from './route.ts';
import { PersonSchema } from './signoff-inputs.ts';

/**
 * POST /admin/v1/campaigns/:id/signers {name, email}: a required signer of the readiness
 * report (201). The same e-mail twice on one campaign is 409. Adding a signer to a sealed
 * report unseals it until the new signer is in too.
 */
export const registerAddSigner: RegisterRoute = (app, { db, events }) => {
  app.post('/admin/v1/campaigns/:id/signers', async (req, res) => {
    requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const body = parseBody(PersonSchema, req.body);
    const added = await addSigner(db, { campaignId: id, name: body.name, email: body.email }, events);
    if (added.outcome === 'not_found') throw notFound('campaign', id);
    if (added.outcome === 'duplicate') throw conflict(`${body.email} is already a signer of this campaign.`);
    sendJson(req, res, 201, toAdminSigner(added.signer));
  });
};

/** GET /admin/v1/campaigns/:id/signers: every signer, oldest first. */
export const registerListSigners: RegisterRoute = (app, { db }) => {
  app.get('/admin/v1/campaigns/:id/signers', async (req, res) => {
    requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const signers = await listSigners(db, id);
    if (!signers) throw notFound('campaign', id);
    sendJson(req, res, 200, signers.map(toAdminSigner));
  });
};

/**
 * DELETE /admin/v1/campaigns/:id/signers/:signerId: 204; the signer and its entries go. The
 * remaining signers may all be in on the current version, which seals it.
 */
export const registerRemoveSigner: RegisterRoute = (app, { db, events }) => {
  app.delete('/admin/v1/campaigns/:id/signers/:signerId', async (req, res) => {
    requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const signerId = pathId(req.params.signerId, 'signer');
    const removed = await removeSigner(db, { campaignId: id, signerId }, events);
    if (removed === 'not_found_campaign') throw notFound('campaign', id);
    if (removed === 'not_found_signer') throw notFound('signer', signerId);
    res.status(204).end();
  });
};
