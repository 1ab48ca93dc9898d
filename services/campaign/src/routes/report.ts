import { AppError, conflict, notFound, parseBody, pathId, requireAdmin, sendJson } from '@preflight/http';
import { toAdminReport, toReportEntry } from '../views/signoff-shapes.ts';
import { addEntry, getReport, type AddEntry } from '../storage/report.ts';
import type { RegisterRoute } from './route.ts';
import { StampSchema, WaiverSchema } from './signoff-inputs.ts';

/** GET /admin/v1/campaigns/:id/report: the current version, its seal and counts, every entry. */
export const registerGetReport: RegisterRoute = (app, { db }) => {
  app.get('/admin/v1/campaigns/:id/report', async (req, res) => {
    requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const report = await getReport(db, id);
    if (!report) throw notFound('campaign', id);
    sendJson(req, res, 200, toAdminReport(report));
  });
};

/** The entry, or the problem: unknown campaign 404, a signer not of this campaign 422, stale or repeated 409. */
function entryOrThrow(added: AddEntry, campaignId: string, signerId: string, version: number) {
  switch (added.outcome) {
    case 'not_found':
      throw notFound('campaign', campaignId);
    case 'unknown_signer':
      throw new AppError('validation', 'One or more fields are invalid.', { errors: { signerId: ['Is not a signer of this campaign.'] } });
    case 'stale':
      throw conflict(`The report is at version ${added.current}; version ${version} is not the current one.`, { currentVersion: added.current });
    case 'duplicate':
      throw conflict(`Signer ${signerId} has already stamped or been waived on version ${version}.`, { currentVersion: added.current });
    case 'created':
      return toReportEntry(added.entry);
  }
}

/**
 * POST /admin/v1/campaigns/:id/report/stamps {signerId, version, decision, note?}: 201 the entry.
 * Only the current version takes stamps (another is 409), once per signer.
 */
export const registerAddStamp: RegisterRoute = (app, { db, events }) => {
  app.post('/admin/v1/campaigns/:id/report/stamps', async (req, res) => {
    requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const body = parseBody(StampSchema, req.body);
    const added = await addEntry(db, { campaignId: id, signerId: body.signerId.toLowerCase(), version: body.version, kind: 'stamp', decision: body.decision, note: body.note }, events);
    sendJson(req, res, 201, entryOrThrow(added, id, body.signerId, body.version));
  });
};

/** POST /admin/v1/campaigns/:id/report/waivers {signerId, version, reason?}: 201 the entry, likewise. */
export const registerAddWaiver: RegisterRoute = (app, { db, events }) => {
  app.post('/admin/v1/campaigns/:id/report/waivers', async (req, res) => {
    requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const body = parseBody(WaiverSchema, req.body);
    const added = await addEntry(db, { campaignId: id, signerId: body.signerId.toLowerCase(), version: body.version, kind: 'waiver', decision: null, note: body.reason }, events);
    sendJson(req, res, 201, entryOrThrow(added, id, body.signerId, body.version));
  });
};
