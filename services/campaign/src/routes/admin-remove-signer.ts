import { notFound, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { removeSigner } from '../storage/report.ts';
import type { Registration } from './context.ts';

/**
 * DELETE /admin/v1/campaigns/:id/signers/:signerId: 204; the signer and its entries go. The
 * remaining signers may all be in on the current version, which seals it.
 */
export const register: Registration = (app, { db, events }) =>
  route(app, 'adminRemoveSigner', async (req, res) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const signerId = pathId(req.params.signerId, 'signer');
    const removed = await removeSigner(db, { campaignId: id, signerId, orgScope }, events);
    if (removed === 'not_found_campaign') throw notFound('campaign', id);
    if (removed === 'not_found_signer') throw notFound('signer', signerId);
    // 204 has no body, so nothing goes through io.send.
    res.status(204).end();
  });
