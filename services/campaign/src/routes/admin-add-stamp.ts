import { pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { addEntry } from '../storage/report.ts';
import type { Registration } from './context.ts';
import { entryOrThrow } from './report-entry.ts';

/**
 * POST /admin/v1/campaigns/:id/report/stamps {signerId, version, decision, note?}: 201 the entry.
 * Only the current version takes stamps (another is 409), once per signer.
 */
export const register: Registration = (app, { db, events }) =>
  route(app, 'adminAddStamp', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const body = io.body;
    const added = await addEntry(db, { campaignId: id, signerId: body.signerId.toLowerCase(), version: body.version, kind: 'stamp', decision: body.decision, note: body.note, orgScope }, events);
    io.send(entryOrThrow(added, id, body.signerId, body.version));
  });
