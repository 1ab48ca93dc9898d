import { z } from 'zod';
import { optionalText } from '@preflight/contract';
import { parseBody, pathId, requireAdmin, sendJson } from '@preflight/http';
import { addEntry } from '../storage/report.ts';
import type { Registration } from './context.ts';
import { entryOrThrow } from './report-entry.ts';
import { MAX_NOTE, requiredMessage, signerId, version } from './signoff-fields.ts';

const StampSchema = z.strictObject({
  signerId,
  version,
  decision: z.enum(['approve', 'reject'], { error: (issue) => requiredMessage(issue) ?? 'Must be one of: approve, reject.' }),
  note: optionalText(MAX_NOTE),
});

/**
 * POST /admin/v1/campaigns/:id/report/stamps {signerId, version, decision, note?}: 201 the entry.
 * Only the current version takes stamps (another is 409), once per signer.
 */
export const register: Registration = (app, { db, events }) => {
  app.post('/admin/v1/campaigns/:id/report/stamps', async (req, res) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const body = parseBody(StampSchema, req.body);
    const added = await addEntry(db, { campaignId: id, signerId: body.signerId.toLowerCase(), version: body.version, kind: 'stamp', decision: body.decision, note: body.note, orgScope }, events);
    sendJson(req, res, 201, entryOrThrow(added, id, body.signerId, body.version));
  });
};
