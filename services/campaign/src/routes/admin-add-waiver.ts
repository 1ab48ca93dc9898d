import { z } from 'zod';
import { optionalText } from '@preflight/contract';
import { parseBody, pathId, requireAdmin, sendJson } from '@preflight/http';
import { addEntry } from '../storage/report.ts';
import type { Registration } from './context.ts';
import { entryOrThrow } from './report-entry.ts';
import { MAX_NOTE, signerId, version } from './signoff-fields.ts';

const WaiverSchema = z.strictObject({ signerId, version, reason: optionalText(MAX_NOTE) });

/** POST /admin/v1/campaigns/:id/report/waivers {signerId, version, reason?}: 201 the entry, as for a stamp. */
export const register: Registration = (app, { db, events }) => {
  app.post('/admin/v1/campaigns/:id/report/waivers', async (req, res) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const body = parseBody(WaiverSchema, req.body);
    const added = await addEntry(db, { campaignId: id, signerId: body.signerId.toLowerCase(), version: body.version, kind: 'waiver', decision: null, note: body.reason, orgScope }, events);
    sendJson(req, res, 201, entryOrThrow(added, id, body.signerId, body.version));
  });
};
